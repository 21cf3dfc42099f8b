// "New GPU…", "New System…" and their Edit: a form of a profile's spec-sheet fields, each with
// its unit and meaning, checked on every keystroke by the loader itself (the form builds the
// JSON, core's checkUserProfile() reads it as it would read the file), and saved into the
// user's profile folder (core/hardware/user_profiles.h).
#pragma once

#include "hardware/user_profiles.h"
#include "profile_editor/profile_fields.h"

#include <nlohmann/json.hpp>

#include <QDialog>
#include <QString>

#include <map>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QPushButton;
QT_END_NAMESPACE

namespace iterscope::ui {

class ProfileEditor : public QDialog {
    Q_OBJECT
  public:
    enum class Mode {
        New,  // starts from a profile chosen in a box (shipped or the user's), as a copy
        Edit, // the user's profile `from`, in place (a new id renames its file)
    };
    ProfileEditor(ProfileKind kind, Mode mode, const QString& from, QWidget* parent = nullptr);

    ProfileKind kind() const { return m_kind; }
    Mode mode() const { return m_mode; }
    // New: the profile the form started from.
    QComboBox* startFrom() const { return m_start; }
    // The profile as the form says it: the text the loader is given and Save writes.
    QString profileText() const;
    // Why the form cannot be saved, as the loader says it; empty when it can.
    QString problem() const { return m_problem; }
    QLabel* problemLabel() const { return m_problem_label; }
    QPushButton* saveButton() const { return m_save; }
    // The editor of a profile key ("sm_count"), for tests; null for a key not shown.
    QWidget* fieldEditor(const QString& key) const;
    QString fieldText(const QString& key) const;
    void setFieldText(const QString& key, const QString& text);
    // Writes the profile into the user folder; false with `error` when it cannot be.
    bool save(QString* error);
    QString savedId() const { return m_saved_id; }

  signals:
    void saved(iterscope::ProfileKind kind, const QString& id);

  private:
    void buildForm();
    void startFromProfile(const QString& id);
    void showProfile(const nlohmann::ordered_json& profile);
    nlohmann::ordered_json formProfile() const;
    void check();

    ProfileKind m_kind;
    Mode m_mode;
    QString m_editing; // Edit: the id being edited
    std::vector<ProfileField> m_fields;
    // The profile shown last: keys the form does not show (a calibration) pass through.
    nlohmann::ordered_json m_base;
    std::map<QString, QWidget*> m_editors;
    std::map<QString, QLabel*> m_labels;
    QComboBox* m_start = nullptr;
    QLabel* m_problem_label = nullptr;
    QPushButton* m_save = nullptr;
    QString m_problem;
    QString m_saved_id;
    bool m_filling = false;
};

} // namespace iterscope::ui
