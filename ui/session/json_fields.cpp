#include "session/json_fields.h"

#include <QJsonValue>

#include <cmath>

namespace iterscope::ui {

bool readString(const QJsonObject& json, const char* key, QString& out, QString* error) {
    const auto v = json.value(QLatin1String(key));
    if (v.isUndefined())
        return true;
    if (!v.isString()) {
        *error = QStringLiteral("%1: must be a string").arg(QLatin1String(key));
        return false;
    }
    out = v.toString();
    return true;
}

bool readInt64(const QJsonObject& json, const char* key, int64_t lo, int64_t hi, int64_t& out,
               QString* error) {
    const auto v = json.value(QLatin1String(key));
    if (v.isUndefined())
        return true;
    const double d = v.toDouble(-1e300);
    if (!v.isDouble() || d < static_cast<double>(lo) || d > static_cast<double>(hi) ||
        d != std::floor(d)) {
        *error = QStringLiteral("%1: must be a whole number from %2 to %3")
                     .arg(QLatin1String(key))
                     .arg(lo)
                     .arg(hi);
        return false;
    }
    out = static_cast<int64_t>(d);
    return true;
}

bool readInt(const QJsonObject& json, const char* key, int lo, int hi, int& out, QString* error) {
    int64_t wide = out;
    if (!readInt64(json, key, lo, hi, wide, error))
        return false;
    out = static_cast<int>(wide);
    return true;
}

bool readOptionalPositive(const QJsonObject& json, const char* key, double hi,
                          std::optional<double>& out, QString* error) {
    const auto v = json.value(QLatin1String(key));
    if (v.isUndefined())
        return true;
    if (v.isNull()) {
        out.reset();
        return true;
    }
    const double d = v.toDouble(-1);
    if (!v.isDouble() || !(d > 0 && d <= hi)) {
        *error = QStringLiteral("%1: must be null or a number above 0 and at most %2")
                     .arg(QLatin1String(key))
                     .arg(hi);
        return false;
    }
    out = d;
    return true;
}

} // namespace iterscope::ui
