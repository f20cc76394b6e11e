#pragma once
// Whitespace trimming for what the API server and kubeconfig files hand over with line ends
// (response headers, token and namespace files).

#include <algorithm>
#include <cctype>
#include <string>

namespace gantry::kube {

inline std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

}  // namespace gantry::kube
