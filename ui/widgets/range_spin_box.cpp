#include "widgets/range_spin_box.h"

#include <QKeyEvent>

#include <QTimer>
#include <QToolTip>
#include <optional>

namespace iterscope::ui {
namespace {
constexpr int kRefusedMs = 2500; // how long the box stays red

// The number typed, if the text (prefix, suffix and separators aside) is a whole number.
std::optional<qlonglong> typedNumber(const QString& text) {
    QString digits = text.trimmed();
    digits.remove(QLatin1Char(','));
    if (digits.isEmpty() || digits.size() > 12)
        return std::nullopt;
    bool ok = false;
    const qlonglong v = digits.toLongLong(&ok);
    return ok ? std::optional(v) : std::nullopt;
}
} // namespace

RangeSpinBox::RangeSpinBox(QWidget* parent)
    : QSpinBox(parent) {
    // One edit is one change: the value is taken on Enter, focus-out or a step, not on
    // every keystroke (typing 128 used to make three undo steps, 32→1, 1→12, 12→128).
    setKeyboardTracking(false);
    connect(this, &QSpinBox::valueChanged, this, [this] {
        m_refusal.clear();
        markRefused(false);
    });
}

QValidator::State RangeSpinBox::validate(QString& text, int& pos) const {
    const QValidator::State state = QSpinBox::validate(text, pos);
    if (state != QValidator::Invalid)
        return state;
    // A number outside the range may still be typed; Enter refuses it (keyPressEvent).
    QString bare = text;
    if (bare.startsWith(prefix()))
        bare.remove(0, prefix().size());
    if (bare.endsWith(suffix()))
        bare.chop(suffix().size());
    return typedNumber(bare) ? QValidator::Intermediate : QValidator::Invalid;
}

void RangeSpinBox::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter)
        refuseIfOutOfRange();
    QSpinBox::keyPressEvent(event); // an Intermediate text goes back to the value it had
}

void RangeSpinBox::focusOutEvent(QFocusEvent* event) {
    refuseIfOutOfRange();
    QSpinBox::focusOutEvent(event);
}

void RangeSpinBox::refuseIfOutOfRange() {
    const auto typed = typedNumber(cleanText());
    if (!typed || (*typed >= minimum() && *typed <= maximum()))
        return;
    QString message = tr("%1 refused: from %2 to %3").arg(*typed).arg(minimum()).arg(maximum());
    if (!m_reason.isEmpty())
        message += QStringLiteral(" (%1)").arg(m_reason);
    m_refusal = message;
    markRefused(true);
    QToolTip::showText(mapToGlobal(QPoint(0, height())), message, this, QRect(), kRefusedMs);
    emit refused(message);
    QTimer::singleShot(kRefusedMs, this, [this] { markRefused(false); });
}

void RangeSpinBox::markRefused(bool refused) {
    if (property("refused").toBool() == refused)
        return;
    setProperty("refused", refused);
    QPalette p = palette();
    if (refused) {
        const bool dark = p.color(QPalette::Base).lightness() < 128;
        p.setColor(QPalette::Base, dark ? QColor(0x6b, 0x1f, 0x24) : QColor(0xf8, 0xd7, 0xda));
        setPalette(p);
    } else {
        setPalette(QPalette()); // back to the window's, light or dark
    }
}

} // namespace iterscope::ui
