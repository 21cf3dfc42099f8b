#include "cli/table.h"
#include "util/number_text.h"

#include <algorithm>
#include <cstdio>

namespace iterscope::cli {

void TextTable::addColumn(std::string header, Align align) {
    headers_.push_back(std::move(header));
    aligns_.push_back(align);
}

void TextTable::addRow(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    rows_.push_back(std::move(cells));
}

void TextTable::addRule() {
    rows_.emplace_back();
}

std::string TextTable::render() const {
    std::vector<std::size_t> widths(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) {
        widths[c] = headers_[c].size();
        for (const auto& row : rows_)
            if (!row.empty())
                widths[c] = std::max(widths[c], row[c].size());
    }
    std::size_t total = 0;
    for (std::size_t w : widths)
        total += w + 2;
    const std::string rule(total > 2 ? total - 2 : 0, '-');
    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(widths[c] - cells[c].size(), ' ');
            out += aligns_[c] == Align::Left ? cells[c] + pad : pad + cells[c];
            if (c + 1 < cells.size())
                out += "  ";
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        return out + "\n";
    };
    std::string out = line(headers_) + rule + "\n";
    for (const auto& row : rows_)
        out += row.empty() ? rule + "\n" : line(row);
    return out;
}

std::string withThousands(int64_t value) {
    std::string digits = std::to_string(value < 0 ? -value : value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return value < 0 ? "-" + out : out;
}

std::string fixed(double value, int decimals) {
    return fixedDecimals(value, decimals);
}

std::string humanBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024 && unit < 4) {
        bytes /= 1024;
        ++unit;
    }
    return fixed(bytes, unit == 0 ? 0 : 1) + " " + units[unit];
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

} // namespace iterscope::cli
