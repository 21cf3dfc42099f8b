#include "profile_editor/profile_editor.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "hardware/profile_writer.h"
#include "util/error.h"
#include "util/text_file.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

namespace iterscope::ui {

namespace {

using ojson = nlohmann::ordered_json;
using Type = ProfileField::Type;

// What the loader is told the form is called: its errors start with it.
const std::string kFormFile = "form";

QString kindName(ProfileKind kind) {
    return kind == ProfileKind::Gpu ? ProfileEditor::tr("GPU") : ProfileEditor::tr("system");
}

QString valueText(const ojson& v) {
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    if (v.is_number_integer())
        return QString::number(v.get<long long>());
    if (v.is_number())
        return QString::number(v.get<double>(), 'g', 15);
    if (v.is_array() &&
        std::all_of(v.begin(), v.end(), [](const ojson& e) { return e.is_string(); })) {
        QStringList ids;
        for (const ojson& e : v)
            ids.append(QString::fromStdString(e.get<std::string>()));
        return ids.join(QStringLiteral(", "));
    }
    return QString::fromStdString(v.dump());
}

// A number as typed, else the text itself: the loader then says what is wrong with it
// ("must be a number, not a string"), so the form never judges a value on its own.
ojson numberOrText(const QString& text) {
    bool ok = false;
    const qlonglong whole = text.toLongLong(&ok);
    if (ok)
        return whole;
    const double d = text.toDouble(&ok);
    if (ok)
        return d;
    return text.toStdString();
}

std::vector<std::string> profileIds(ProfileKind kind) {
    return kind == ProfileKind::Gpu ? gpuIds() : systemIds();
}

ojson loadedProfile(ProfileKind kind, const std::string& id) {
    return kind == ProfileKind::Gpu ? gpuProfileJson(loadGpuProfile(id))
                                    : systemProfileJson(loadSystemProfile(id));
}

// "<base>-custom", or "-custom-2" and on when that is taken.
std::string freeId(ProfileKind kind, const std::string& base) {
    const std::vector<std::string> taken = profileIds(kind);
    std::string stem = base + "-custom";
    if (stem.size() > 56)
        stem = stem.substr(stem.size() - 56);
    std::string id = stem;
    for (int n = 2; std::find(taken.begin(), taken.end(), id) != taken.end(); ++n)
        id = stem + "-" + std::to_string(n);
    return id;
}

// The error colour, readable on the light and the dark palette alike.
void markProblem(QLabel* label, bool problem) {
    if (!problem) {
        label->setPalette(QPalette()); // nothing set: the window's palette again
        return;
    }
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, QColor(0xd0, 0x30, 0x30));
    label->setPalette(palette);
}

// A field's meaning beside it: smaller and quieter than the values.
QLabel* caption(const QString& text) {
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    QFont small = label->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    label->setFont(small);
    return label;
}

} // namespace

ProfileEditor::ProfileEditor(ProfileKind kind, Mode mode, const QString& from, QWidget* parent)
    : QDialog(parent)
    , m_kind(kind)
    , m_mode(mode)
    , m_fields(profileFields(kind)) {
    setObjectName(QStringLiteral("profileEditor"));
    const QString what = kindName(kind);
    setWindowTitle(mode == Mode::New ? tr("New %1").arg(what) : tr("Edit %1 %2").arg(what, from));
    buildForm();
    if (mode == Mode::Edit) {
        m_editing = from;
        const std::string path = userProfilePath(kind, from.toStdString());
        try {
            // The file as written, not as loaded: a profile of the user's that the loader
            // refuses opens too, to be mended here.
            ojson written =
                ojson::parse(readBoundedFile(path, profile_json::kMaxFileBytes, "a profile"));
            if (!written.is_object())
                throw InputError(path + ": the top level must be a JSON object");
            showProfile(written);
        } catch (const std::exception& e) {
            // Nothing to show: nothing to save either.
            m_problem = QString::fromStdString(e.what());
            m_problem_label->setText(m_problem);
            m_save->setEnabled(false);
            return;
        }
    } else {
        const int index = m_start->findData(from);
        m_start->setCurrentIndex(std::max(index, 0));
        startFromProfile(m_start->currentData().toString());
        connect(m_start, &QComboBox::currentIndexChanged, this,
                [this] { startFromProfile(m_start->currentData().toString()); });
    }
    check();
}

void ProfileEditor::buildForm() {
    auto* layout = new QVBoxLayout(this);
    const QString folder = QString::fromStdString(
        (std::filesystem::path(userProfilesDir()) / profileSubdir(m_kind)).string());
    auto* intro = new QLabel(this);
    intro->setWordWrap(true);
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);
    intro->setText(
        tr("Saved as <i>id</i>.json in %1. The %2 box lists it at once, marked “(yours)”, and "
           "<tt>iterscope-cli</tt> takes it by its id. Every change is checked as the file "
           "would be when loaded.")
            .arg(folder.toHtmlEscaped(), kindName(m_kind)));
    layout->addWidget(intro);

    auto* start_row = new QHBoxLayout;
    m_start = new QComboBox(this);
    m_start->setObjectName(QStringLiteral("startFrom"));
    auto* start_label = new QLabel(tr("&Start from:"), this);
    start_label->setBuddy(m_start);
    for (const std::string& id : profileIds(m_kind)) {
        try {
            const ojson p = loadedProfile(m_kind, id);
            const QString qid = QString::fromStdString(id);
            m_start->addItem(QStringLiteral("%1 (%2)").arg(
                                 QString::fromStdString(p["name"].get<std::string>()), qid),
                             qid);
        } catch (const std::exception&) {
            // A broken profile cannot be a starting point; the scenario panel shows why.
        }
    }
    m_start->setToolTip(tr("The %1 whose figures the form starts with: pick the most similar "
                           "one, then change what differs")
                            .arg(kindName(m_kind)));
    start_row->addWidget(start_label);
    start_row->addWidget(m_start, 1);
    layout->addLayout(start_row);
    start_label->setVisible(m_mode == Mode::New);
    m_start->setVisible(m_mode == Mode::New);

    // Two columns of sections, so that a GPU's whole sheet fits a 1280×720 screen.
    auto* columns_widget = new QWidget;
    auto* columns = new QHBoxLayout(columns_widget);
    columns->setContentsMargins(0, 0, 0, 0);
    QStringList sections;
    for (const ProfileField& f : m_fields)
        if (!sections.contains(f.section))
            sections.append(f.section);
    const auto split = (sections.size() + 1) / 2;
    QGridLayout* grids[2] = {new QGridLayout, new QGridLayout};
    for (QGridLayout* grid : grids) {
        grid->setColumnStretch(3, 1);
        grid->setHorizontalSpacing(8);
        grid->setVerticalSpacing(3);
        auto* box = new QVBoxLayout;
        box->addLayout(grid);
        box->addStretch(1);
        columns->addLayout(box, 1);
    }
    for (const ProfileField& f : m_fields) {
        QGridLayout* grid = grids[sections.indexOf(f.section) < split ? 0 : 1];
        int row = grid->rowCount();
        if (row == 1 && grid->itemAtPosition(0, 0) == nullptr)
            row = 0;
        const bool first_of_section = &f == &m_fields.front() || (&f)[-1].section != f.section;
        if (first_of_section) {
            auto* heading = new QLabel(QStringLiteral("<b>%1</b>").arg(f.section.toHtmlEscaped()));
            grid->addWidget(heading, row++, 0, 1, 4);
        }
        QWidget* editor = nullptr;
        switch (f.type) {
        case Type::LongText: {
            auto* text = new QPlainTextEdit;
            text->setTabChangesFocus(true);
            // Three whole lines, none peeking in below them: plain text lines are the font's
            // height apart (without its leading), and only the top margin stays in view.
            text->setFixedHeight(text->fontMetrics().height() * 3 +
                                 static_cast<int>(text->document()->documentMargin()) +
                                 text->frameWidth() * 2);
            text->setPlaceholderText(f.meaning);
            connect(text, &QPlainTextEdit::textChanged, this, &ProfileEditor::check);
            editor = text;
            break;
        }
        case Type::Choice: {
            auto* combo = new QComboBox;
            combo->setEditable(true);
            combo->addItems(f.choices);
            combo->setInsertPolicy(QComboBox::NoInsert);
            connect(combo, &QComboBox::currentTextChanged, this, &ProfileEditor::check);
            editor = combo;
            break;
        }
        case Type::Flag: {
            auto* box = new QCheckBox;
            connect(box, &QCheckBox::toggled, this, &ProfileEditor::check);
            editor = box;
            break;
        }
        default: {
            auto* line = new QLineEdit;
            if (f.type == Type::WideText)
                line->setPlaceholderText(f.meaning);
            connect(line, &QLineEdit::textChanged, this, &ProfileEditor::check);
            editor = line;
            break;
        }
        }
        editor->setObjectName(f.key);
        editor->setToolTip(QStringLiteral("%1 (%2): %3").arg(f.label, f.key, f.meaning));
        if (f.type != Type::LongText && f.type != Type::Flag)
            editor->setMinimumWidth(editor->fontMetrics().horizontalAdvance(QLatin1Char('0')) *
                                    (f.type == Type::Text || f.type == Type::Choice ? 24 : 9));
        auto* label = new QLabel(f.label);
        label->setBuddy(editor);
        label->setToolTip(editor->toolTip());
        grid->addWidget(label, row, 0);
        if (f.type == Type::LongText || f.type == Type::WideText) {
            // Free text wants the width: its meaning is its placeholder and its tooltip.
            grid->addWidget(editor, row, 1, 1, 3);
        } else if (f.type == Type::Text || f.type == Type::Choice) {
            // Names and ids run longer than numbers: they take the unit's column too.
            grid->addWidget(editor, row, 1, 1, 2);
            grid->addWidget(caption(f.meaning), row, 3);
        } else {
            grid->addWidget(editor, row, 1);
            grid->addWidget(new QLabel(f.unit), row, 2);
            grid->addWidget(caption(f.meaning), row, 3);
        }
        m_editors[f.key] = editor;
        m_labels[f.key] = label;
    }
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(columns_widget);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(scroll, 1);

    m_problem_label = new QLabel(this);
    m_problem_label->setObjectName(QStringLiteral("problem"));
    m_problem_label->setWordWrap(true);
    m_problem_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_problem_label);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    m_save = buttons->button(QDialogButtonBox::Save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        QString error;
        if (save(&error))
            accept();
        else
            m_problem_label->setText(error);
    });
    layout->addWidget(buttons);
    resize(1180, 680);
}

void ProfileEditor::startFromProfile(const QString& id) {
    if (id.isEmpty())
        return;
    ojson p;
    try {
        p = loadedProfile(m_kind, id.toStdString());
    } catch (const std::exception& e) {
        m_problem_label->setText(QString::fromStdString(e.what()));
        return;
    }
    // A new profile: the figures are the base's until changed, but its price and its
    // calibration belong to the base's own device.
    p["id"] = freeId(m_kind, id.toStdString());
    p["name"] =
        tr("%1 (custom)").arg(QString::fromStdString(p["name"].get<std::string>())).toStdString();
    p["notes"] = tr("Started from %1 (%2).")
                     .arg(QString::fromStdString(
                              loadedProfile(m_kind, id.toStdString())["name"].get<std::string>()),
                          id)
                     .toStdString();
    for (const char* key : {"usd_per_gpu_hour", "price_source", "price_date", "measured"})
        p.erase(key);
    showProfile(p);
}

void ProfileEditor::showProfile(const ojson& profile) {
    m_filling = true;
    m_base = profile;
    for (const ProfileField& f : m_fields) {
        QWidget* editor = m_editors.at(f.key);
        const auto it = profile.find(f.key.toStdString());
        const QString text = it == profile.end() ? QString() : valueText(*it);
        if (auto* line = qobject_cast<QLineEdit*>(editor)) {
            line->setText(text);
            line->setCursorPosition(0); // a long value shows its start
        } else if (auto* plain = qobject_cast<QPlainTextEdit*>(editor)) {
            plain->setPlainText(text);
        } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
            combo->setCurrentText(text);
        } else if (auto* box = qobject_cast<QCheckBox*>(editor)) {
            box->setChecked(it != profile.end() && it->is_boolean() && it->get<bool>());
        }
    }
    m_filling = false;
    check();
}

QString ProfileEditor::fieldText(const QString& key) const {
    const auto it = m_editors.find(key);
    if (it == m_editors.end())
        return {};
    QWidget* editor = it->second;
    if (auto* line = qobject_cast<QLineEdit*>(editor))
        return line->text();
    if (auto* plain = qobject_cast<QPlainTextEdit*>(editor))
        return plain->toPlainText();
    if (auto* combo = qobject_cast<QComboBox*>(editor))
        return combo->currentText();
    if (auto* box = qobject_cast<QCheckBox*>(editor))
        return box->isChecked() ? QStringLiteral("true") : QString();
    return {};
}

void ProfileEditor::setFieldText(const QString& key, const QString& text) {
    const auto it = m_editors.find(key);
    if (it == m_editors.end())
        return;
    QWidget* editor = it->second;
    if (auto* line = qobject_cast<QLineEdit*>(editor))
        line->setText(text);
    else if (auto* plain = qobject_cast<QPlainTextEdit*>(editor))
        plain->setPlainText(text);
    else if (auto* combo = qobject_cast<QComboBox*>(editor))
        combo->setCurrentText(text);
    else if (auto* box = qobject_cast<QCheckBox*>(editor))
        box->setChecked(text == QLatin1String("true"));
}

QWidget* ProfileEditor::fieldEditor(const QString& key) const {
    const auto it = m_editors.find(key);
    return it == m_editors.end() ? nullptr : it->second;
}

ojson ProfileEditor::formProfile() const {
    ojson p = m_base;
    for (const ProfileField& f : m_fields) {
        const std::string key = f.key.toStdString();
        const QString text = fieldText(f.key).trimmed();
        // Empty leaves the key out: an optional field takes the loader's default, a
        // required one is reported missing.
        if (text.isEmpty() && f.type != Type::Flag) {
            p.erase(key);
            continue;
        }
        switch (f.type) {
        case Type::Number:
            p[key] = numberOrText(text);
            break;
        case Type::Flag:
            if (text.isEmpty())
                p.erase(key);
            else
                p[key] = true;
            break;
        case Type::JsonList: {
            ojson parsed = ojson::parse(text.toStdString(), nullptr, false);
            p[key] = parsed.is_discarded() ? ojson(text.toStdString()) : parsed;
            break;
        }
        case Type::IdList: {
            ojson ids = ojson::array();
            for (const QString& id : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
                ids.push_back(id.trimmed().toStdString());
            p[key] = ids;
            break;
        }
        default:
            // Notes keep their line breaks; everything else is one line.
            p[key] = (f.type == Type::LongText ? fieldText(f.key).trimmed() : text).toStdString();
            break;
        }
    }
    return p;
}

QString ProfileEditor::profileText() const {
    return QString::fromStdString(iterscope::profileText(formProfile()));
}

void ProfileEditor::check() {
    if (m_filling)
        return;
    QString field;
    try {
        checkUserProfile(m_kind, iterscope::profileText(formProfile()), m_editing.toStdString(),
                         kFormFile);
        m_problem.clear();
    } catch (const std::exception& e) {
        QString what = QString::fromStdString(e.what());
        const QString prefix = QString::fromStdString(kFormFile) + QStringLiteral(": ");
        if (what.startsWith(prefix)) {
            // "form: sm_count: must be ..." -> the field's label with the loader's words.
            what = what.mid(prefix.size());
            field = what.section(QStringLiteral(": "), 0, 0).section(QLatin1Char('['), 0, 0);
            if (const auto it = m_labels.find(field); it != m_labels.end())
                what = QStringLiteral("%1 (%2)").arg(it->second->text(), what);
        } else {
            field = QStringLiteral("id"); // the user folder's refusals are about the id
        }
        m_problem = what;
    }
    // The field the loader names is marked; its words go under the form.
    for (const auto& entry : m_labels) {
        const bool bad = entry.first == field && !m_problem.isEmpty();
        markProblem(entry.second, bad);
        QFont font = entry.second->font();
        font.setBold(bad);
        entry.second->setFont(font);
    }
    markProblem(m_problem_label, !m_problem.isEmpty());
    m_problem_label->setText(m_problem.isEmpty() ? tr("Ready to save.")
                                                 : QStringLiteral("⚠ %1").arg(m_problem));
    m_save->setEnabled(m_problem.isEmpty());
}

bool ProfileEditor::save(QString* error) {
    check();
    if (!m_problem.isEmpty()) {
        if (error)
            *error = m_problem;
        return false;
    }
    try {
        const std::string text = iterscope::profileText(formProfile());
        saveUserProfile(m_kind, text, m_editing.toStdString());
        m_saved_id = QString::fromStdString(formProfile()["id"].get<std::string>());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    emit saved(m_kind, m_saved_id);
    return true;
}

} // namespace iterscope::ui
