#include "widgets/format.h"

#include <QLocale>
#include <QStringList>

#include <cmath>

namespace iterscope::ui {
namespace {
// Three significant digits read well in tables and never pretend more precision than a
// model has. The decimals follow the rounded value: 99.96 is "100", not "100.0".
QString threeDigits(double v) {
    const double a = std::fabs(v);
    const int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
    return QString::number(v, 'f', decimals);
}

// Whether `a`, counted in units of `unit / 1000` (or of `unit / 1024` for bytes), would
// show as 1000 or more once rounded to three digits: 0.9996 ms is "1.00 ms", not
// "1000 µs", and 1023.9 KiB is "1.00 MiB".
bool reaches(double a, double unit, double per_unit = 1000) {
    return a / (unit / per_unit) >= 999.5;
}
} // namespace

QString formatMs(double ms) {
    if (!std::isfinite(ms))
        return QStringLiteral("–");
    const double a = std::fabs(ms);
    if (a == 0)
        return QStringLiteral("0 ms");
    if (reaches(a, 1000))
        return threeDigits(ms / 1000) + QStringLiteral(" s");
    if (reaches(a, 1))
        return threeDigits(ms) + QStringLiteral(" ms");
    if (reaches(a, 1e-3))
        return threeDigits(ms * 1e3) + QStringLiteral(" µs");
    return threeDigits(ms * 1e6) + QStringLiteral(" ns");
}

QString formatMsGroup(std::initializer_list<double> ms) {
    QStringList numbers, units;
    for (double v : ms) {
        const QString text = formatMs(v);
        const auto space = text.lastIndexOf(QLatin1Char(' '));
        numbers.append(space < 0 ? text : text.left(space));
        units.append(space < 0 ? QString() : text.mid(space + 1));
    }
    units.removeDuplicates();
    if (units.size() == 1 && !units.front().isEmpty())
        return numbers.join(QStringLiteral(" / ")) + QLatin1Char(' ') + units.front();
    QStringList whole;
    for (double v : ms)
        whole.append(formatMs(v));
    return whole.join(QStringLiteral(" / "));
}

QString formatBytes(int64_t bytes) {
    const double b = static_cast<double>(bytes);
    const double a = std::fabs(b);
    if (reaches(a, 1024.0 * 1024 * 1024, 1024))
        return threeDigits(b / (1024.0 * 1024 * 1024)) + QStringLiteral(" GiB");
    if (reaches(a, 1024.0 * 1024, 1024))
        return threeDigits(b / (1024.0 * 1024)) + QStringLiteral(" MiB");
    if (reaches(a, 1024.0, 1024))
        return threeDigits(b / 1024.0) + QStringLiteral(" KiB");
    return QString::number(bytes) + QStringLiteral(" B");
}

QString formatCount(double count) {
    const double a = std::fabs(count);
    if (reaches(a, 1e12))
        return threeDigits(count / 1e12) + QStringLiteral(" T");
    if (reaches(a, 1e9))
        return threeDigits(count / 1e9) + QStringLiteral(" G");
    if (reaches(a, 1e6))
        return threeDigits(count / 1e6) + QStringLiteral(" M");
    if (reaches(a, 1e3))
        return threeDigits(count / 1e3) + QStringLiteral(" k");
    return QString::number(count, 'f', 0);
}

QString formatRate(double per_second) {
    if (!std::isfinite(per_second))
        return QStringLiteral("–");
    if (per_second >= 100)
        return QLocale(QLocale::English, QLocale::UnitedStates)
            .toString(std::round(per_second), 'f', 0);
    return threeDigits(per_second);
}

QString formatPercent(double fraction) {
    if (!std::isfinite(fraction))
        return QStringLiteral("–");
    return QString::number(fraction * 100, 'f', 1) + QStringLiteral(" %");
}

QString formatSignedPercent(double fraction) {
    if (!std::isfinite(fraction))
        return QStringLiteral("–");
    const QString digits = QString::number(std::abs(fraction) * 100, 'f', 1);
    if (digits == QLatin1String("0.0"))
        return QStringLiteral("0.0 %");
    return (fraction < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + digits +
           QStringLiteral(" %");
}

QString formatBand(double value, double low, double high) {
    if (!(value > 0) || !std::isfinite(low) || !std::isfinite(high) ||
        (low == value && high == value))
        return {};
    const auto percent = [value](double bound) {
        return static_cast<int>(std::lround((bound / value - 1) * 100));
    };
    const int below = percent(low), above = percent(high);
    // The typographic minus: a hyphen reads as a dash beside the plus.
    return QStringLiteral("%1%2 % / +%3 %")
        .arg(below <= 0 ? QStringLiteral("\u2212") : QStringLiteral("+"))
        .arg(std::abs(below))
        .arg(above);
}

} // namespace iterscope::ui
