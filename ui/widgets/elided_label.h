// A label of a fixed number of lines that elides what does not fit, instead of growing.
// Figures and descriptions that change while a slider is dragged must not change height,
// or everything below them jumps under the pointer (issue 14, item 4).
#pragma once

#include <QFont>
#include <QFrame>
#include <QList>
#include <QStaticText>
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
    // Text that no longer holds (a figure of the last result while the newest choices were
    // refused): blended most of the way toward the background, still legible.
    void setFaded(bool faded);
    void setTextColor(const QColor& color); // invalid: the palette's
    bool isElided() const;
    // The lines as painted now, the last one elided where the text is longer.
    QStringList shownLines() const;
    int lineCount() const { return m_lines; }
    // As many lines as the text needs at the label's width, up to `max_lines` (0: the fixed
    // count of setLineCount). The height changes only when the text or the width makes it,
    // not on every new text of the same length.
    void setMaxLines(int max_lines);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

  private:
    // The lines as shown in `width` pixels; the last one elided when the text is longer.
    QStringList layoutLines(int width, bool* elided) const;
    // The same, laid out once for painting and kept until the text, the width or the font
    // change: shaping text is most of what a figure's repaint costs, and a slider drag
    // repaints every figure on every step.
    struct Shown {
        QString text;
        int width = -1;
        QFont font;
        QList<QStaticText> lines;
        bool elided = false;
    };
    const Shown& shown(int width) const;

    QString m_text;
    QString m_explanation;
    QColor m_color;
    int m_lines = 1;
    int m_max_lines = 0;
    // How many lines the whole text takes, wrapped at `width` pixels.
    int linesNeeded(int width) const;
    void setLineCount(int lines);
    void fitLines();
    QString m_fitted_text;
    int m_fitted_width = -1;
    mutable Shown m_shown;
    bool m_muted = false;
    bool m_faded = false;
};

} // namespace iterscope::ui
