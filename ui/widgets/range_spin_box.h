// A spin box that refuses a number outside its range where everyone sees it, instead of
// turning it into another. QSpinBox drops the keystroke that leaves the range, so typing
// 16 where 8 is the most left "1" in the box, and Enter made it 1 GPU per node (issue 20,
// item 3). Here the typed text stays until Enter or focus-out; then an out-of-range number
// is refused: the box keeps its value, turns red for a moment and says why.
#pragma once

#include <QSpinBox>

namespace iterscope::ui {

class RangeSpinBox : public QSpinBox {
    Q_OBJECT
  public:
    explicit RangeSpinBox(QWidget* parent = nullptr);

    // Why the range ends where it does ("an NVIDIA DGX-1 node holds 8 GPUs"), said with a
    // refusal.
    void setRangeReason(const QString& reason) { m_reason = reason; }
    // The last refusal, until a value is accepted; empty when none.
    QString refusal() const { return m_refusal; }

  signals:
    void refused(const QString& message);

  protected:
    QValidator::State validate(QString& text, int& pos) const override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

  private:
    void refuseIfOutOfRange();
    void markRefused(bool refused);

    QString m_reason;
    QString m_refusal;
};

} // namespace iterscope::ui
