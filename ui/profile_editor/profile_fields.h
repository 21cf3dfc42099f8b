// The fields the GPU and system editor shows: each profile key with its label, unit and
// what it means (docs/profiles.md in a line). The loader, not this table, decides what is
// valid: the editor hands it whatever is typed.
#pragma once

#include "hardware/user_profiles.h"

#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

namespace iterscope::ui {

struct ProfileField {
    enum class Type {
        Text,     // a string; empty leaves the key out
        WideText, // the same, as wide as the form (a name)
        LongText, // a string over several lines
        Number,   // written as an integer or a number as typed; anything else as text,
                  // so that the loader's own message says what is wrong
        Choice,   // an editable list of the values the loader knows
        Flag,     // true or false
        JsonList, // a JSON array as typed ("[[0, 1, 2], [0, 2, 2]]")
        IdList,   // ids separated by commas, written as an array of strings
    };
    ProfileField(QString key_, QString label_, QString unit_, QString meaning_, Type type_,
                 QString section_, QStringList choices_ = {})
        : key(std::move(key_))
        , label(std::move(label_))
        , unit(std::move(unit_))
        , meaning(std::move(meaning_))
        , type(type_)
        , section(std::move(section_))
        , choices(std::move(choices_)) {}

    QString key;
    QString label;
    QString unit;
    QString meaning;
    Type type = Type::Number;
    QString section;
    QStringList choices; // Choice: the values offered
};

// In the order the editor shows them, sections in turn.
std::vector<ProfileField> profileFields(ProfileKind kind);

} // namespace iterscope::ui
