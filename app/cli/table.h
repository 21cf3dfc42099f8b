// Plain-text tables and number formatting shared by the CLI commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iterscope::cli {

// Columns are left-aligned text or right-aligned numbers; a rule under the header and before
// the totals row, like torchinfo's summaries.
class TextTable {
  public:
    enum class Align { Left, Right };
    void addColumn(std::string header, Align align);
    void addRow(std::vector<std::string> cells);
    void addRule();                                       // a horizontal line before the next row
    std::size_t rowCount() const { return rows_.size(); } // rules included
    std::string render() const;

  private:
    std::vector<std::string> headers_;
    std::vector<Align> aligns_;
    std::vector<std::vector<std::string>> rows_; // an empty row is a rule
};

std::string withThousands(int64_t value); // 25557032 -> "25,557,032"
std::string fixed(double value, int decimals);
std::string humanBytes(double bytes);       // "97.5 MiB"
std::string csvField(const std::string& s); // quotes when needed

} // namespace iterscope::cli
