// A label of a fixed number of lines that elides what does not fit, instead of growing.
// Figures and descriptions that change while a slider is dragged must not change height,
// or everything below them jumps under the pointer (issue 14, item 4).
#pragma once

#include <QFrame>
#include <QString>

namespace iterscope::ui {

class ElidedLabel : public QFrame {
    Q_OBJECT
  public:
    explicit ElidedLabel(QWidget* parent = nullptr, int lines = 1);

    void setText(const QString& text);
    QString text() const { return m_text; }
    // Text the tooltip shows in any case (what the figure means); the full text is added
    // above it when the shown text is elided.
    void setExplanation(const QString& explanation);
    // Secondary text (descriptions under a control): the palette's text colour blended a
    // quarter toward the background, readable on light and dark themes alike.
    void setMuted(bool muted);
    void setTextColor(const QColor& color); // invalid: the palette's
    bool isElided() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

  private:
    // The lines as shown in `width` pixels; the last one elided when the text is longer.
    QStringList layoutLines(int width, bool* elided) const;

    QString m_text;
    QString m_explanation;
    QColor m_color;
    int m_lines = 1;
    bool m_muted = false;
};

} // namespace iterscope::ui
