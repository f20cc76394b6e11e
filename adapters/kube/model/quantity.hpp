#pragma once
// Kubernetes resource quantities ("500m", "64", "512Gi", "1.5e3", "100M") as integers, the
// arithmetic of k8s.io/apimachinery resource.Quantity:
//
//   quantity  = sign? digits ("." digits)? suffix?      (or "." digits)
//   suffix    = binary: Ki Mi Gi Ti Pi Ei (powers of 1024)
//             | decimal: n u m "" k M G T P E (10^-9 .. 10^18)
//             | exponent: (e|E) sign? digits
//
// The value is exact (no floating point): a decimal with up to 18 fractional digits times its
// suffix. Converting to an integer rounds up, as Quantity.Value() and MilliValue() do, so that
// a request of "0.5m" CPU is never read as zero.
//
// Not engine/config/units.hpp: that parses what users write in Gantry files, strictly (no
// exponent, exact integers). This reads what the API server stores, which may be any
// Quantity form, and rounds up as Kubernetes does.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::kube {

// The quantity times `scale` (1 for bytes or GPUs, 1000 for milli-CPU), rounded up; nullopt
// when `text` is not a quantity, is negative, or the result does not fit in int64.
std::optional<int64_t> parse_quantity(std::string_view text, int64_t scale = 1);

// CPU in milli-cores ("2" -> 2000, "250m" -> 250); memory in bytes ("1Gi" -> 1073741824).
inline std::optional<int64_t> parse_cpu_milli(std::string_view text) {
  return parse_quantity(text, 1000);
}
inline std::optional<int64_t> parse_bytes(std::string_view text) { return parse_quantity(text); }

// Milli-cores as the API server writes them: "2" for whole cores, "250m" otherwise.
std::string format_cpu_quantity(int64_t milli);

}  // namespace gantry::kube
