#include "format.h"

#include <QLocale>
#include <QStringList>

#include <cmath>

namespace iterscope::ui {
namespace {
// Three significant digits read well in tables and never pretend more precision than a
// model has.
QString threeDigits(double v) {
    const double a = std::fabs(v);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return QString::number(v, 'f', decimals);
}
} // namespace

QString formatMs(double ms) {
    if (!std::isfinite(ms))
        return QStringLiteral("–");
    const double a = std::fabs(ms);
    if (a == 0)
        return QStringLiteral("0 ms");
    if (a >= 1000)
        return threeDigits(ms / 1000) + QStringLiteral(" s");
    if (a >= 1)
        return threeDigits(ms) + QStringLiteral(" ms");
    if (a >= 1e-3)
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
    if (a >= 1024.0 * 1024 * 1024)
        return threeDigits(b / (1024.0 * 1024 * 1024)) + QStringLiteral(" GiB");
    if (a >= 1024.0 * 1024)
        return threeDigits(b / (1024.0 * 1024)) + QStringLiteral(" MiB");
    if (a >= 1024.0)
        return threeDigits(b / 1024.0) + QStringLiteral(" KiB");
    return QString::number(bytes) + QStringLiteral(" B");
}

QString formatCount(double count) {
    const double a = std::fabs(count);
    if (a >= 1e12)
        return threeDigits(count / 1e12) + QStringLiteral(" T");
    if (a >= 1e9)
        return threeDigits(count / 1e9) + QStringLiteral(" G");
    if (a >= 1e6)
        return threeDigits(count / 1e6) + QStringLiteral(" M");
    if (a >= 1e3)
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

} // namespace iterscope::ui
