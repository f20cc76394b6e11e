#include "report/text_table.hpp"

#include <algorithm>

namespace gantry {

size_t display_width(const std::string& s) {
  size_t shown = 0;
  for (unsigned char c : s) shown += (c & 0xC0) != 0x80;  // continuation bytes take no column
  return shown;
}

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void TextTable::add(std::vector<std::string> row) {
  row.resize(rows_.front().size());
  rows_.push_back(std::move(row));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<size_t> width(rows_.front().size(), 0);
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  std::string out;
  for (const auto& row : rows_) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - display_width(row[c]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace gantry
