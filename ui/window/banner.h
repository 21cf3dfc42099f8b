// The red line above the views that says what went wrong with a file, with buttons for what
// the user can do about it (a session whose network moved: locate it, or open without it).
#pragma once

#include <QFrame>
#include <QString>

#include <functional>
#include <utility>
#include <vector>

QT_BEGIN_NAMESPACE
class QHBoxLayout;
class QLabel;
class QPushButton;
QT_END_NAMESPACE

namespace iterscope::ui {

class Banner : public QFrame {
    Q_OBJECT
  public:
    struct Choice {
        QString text; // "&Locate resnet.onnx…"
        std::function<void()> act;
    };

    explicit Banner(QWidget* parent = nullptr);

    // Shows `text` (and `details` as its tooltip) with a button per choice; a banner with
    // choices also has a Close button.
    void showMessage(const QString& text, const QString& details = {},
                     std::vector<Choice> choices = {});
    QString text() const;
    QLabel* label() const { return m_label; }
    // The choices' buttons, for tests.
    std::vector<QPushButton*> buttons() const { return m_buttons; }

  private:
    QLabel* m_label = nullptr;
    QHBoxLayout* m_row = nullptr;
    std::vector<QPushButton*> m_buttons;
};

} // namespace iterscope::ui
