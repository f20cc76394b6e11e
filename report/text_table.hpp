#pragma once
// A plain text table: a header row and rows of cells, each column as wide as its widest cell
// (counted in terminal columns: "±" and "—" are one), two spaces between columns, no trailing
// spaces. For the sweep and plan reports.

#include <string>
#include <vector>

namespace gantry {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  // A row of cells; missing cells are empty, extra ones are dropped.
  void add(std::vector<std::string> row);
  // Every row, each line starting with `indent`.
  std::string render(const std::string& indent) const;

 private:
  std::vector<std::vector<std::string>> rows_;  // rows_[0] is the header
};

// Terminal columns of UTF-8 text (code points; no wide characters are used here).
size_t display_width(const std::string& s);

}  // namespace gantry
