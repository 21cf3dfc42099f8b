// Reading the fields of session files strictly: a field that is there must have the right
// type and range, or the file is refused with "<field>: <problem>". A field that is not
// there keeps the default.
#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

namespace iterscope::ui {

bool readString(const QJsonObject& json, const char* key, QString& out, QString* error);
bool readInt(const QJsonObject& json, const char* key, int lo, int hi, int& out, QString* error);
bool readInt64(const QJsonObject& json, const char* key, int64_t lo, int64_t hi, int64_t& out,
               QString* error);
// A number above 0 and at most `hi`, or null for none.
bool readOptionalPositive(const QJsonObject& json, const char* key, double hi,
                          std::optional<double>& out, QString* error);

} // namespace iterscope::ui
