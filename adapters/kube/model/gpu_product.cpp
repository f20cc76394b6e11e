#include "adapters/kube/model/gpu_product.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace gantry::kube {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

// "A100-80G" -> {"A100", "80G"}.
std::vector<std::string> parts_of(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') {
      if (!cur.empty()) out.push_back(upper(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(upper(cur));
  return out;
}

// `part` appears in `product` as a whole token or a token's prefix ("80G" in "80GB"), so "A10"
// does not match "A100".
bool has_part(const std::vector<std::string>& product, const std::string& part) {
  return std::any_of(product.begin(), product.end(), [&](const std::string& token) {
    if (token.rfind(part, 0) != 0) return false;
    const std::string rest = token.substr(part.size());
    return rest.empty() || rest == "B";  // "80G" + "B"
  });
}

}  // namespace

std::string gpu_model_of_product(std::string_view product, const GpuCatalog& catalog) {
  if (const GpuTypeId exact = catalog.find(product); exact >= 0) return catalog.at(exact).name;
  const std::vector<std::string> tokens = parts_of(product);
  std::string best;
  for (const GpuType& t : catalog.types()) {
    const std::vector<std::string> parts = parts_of(t.name);
    if (parts.empty()) continue;
    if (!std::all_of(parts.begin(), parts.end(),
                     [&](const std::string& p) { return has_part(tokens, p); }))
      continue;
    if (t.name.size() > best.size()) best = t.name;
  }
  return best;
}

std::string gpu_product_label(std::string_view model) {
  std::string out = "NVIDIA";
  for (const std::string& part : parts_of(model)) {
    out += "-" + part;
    if (!part.empty() && part.back() == 'G' && std::isdigit(static_cast<unsigned char>(part[0])))
      out += "B";
  }
  return out;
}

}  // namespace gantry::kube
