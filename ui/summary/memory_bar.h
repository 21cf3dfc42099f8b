// Memory per GPU as one stacked bar against the GPU's capacity: weights, gradients,
// optimizer state, activations kept for backward, workspace, and what the framework
// reserves besides, with a legend that names all six. Sharding (ZeRO) and pipelines change the
// parts, so the bar shows why a strategy fits where another does not. Fixed height: it never moves
// the panel.
#pragma once

#include <QColor>
#include <QStaticText>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <utility>
#include <vector>

namespace iterscope {
struct Prediction;
}

namespace iterscope::ui {

class MemoryBar : public QWidget {
    Q_OBJECT
  public:
    struct Part {
        QString name; // "weights", as the legend says it
        int64_t bytes = 0;
        QColor color;
    };

    explicit MemoryBar(QWidget* parent = nullptr);

    // Takes the breakdown of `prediction` against `capacity_bytes`; null clears the bar.
    void setMemory(const Prediction* prediction, int64_t capacity_bytes);
    // Drawn faint: the figures of a result that no longer matches the choices.
    void setFaded(bool faded);
    const std::vector<Part>& parts() const { return m_parts; }
    int64_t capacityBytes() const { return m_capacity; }
    int64_t totalBytes() const { return m_total; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void layoutLegend() const;

    std::vector<Part> m_parts; // all six kinds, in legend order
    int64_t m_capacity = 0;
    int64_t m_total = 0;
    bool m_faded = false;
    mutable int m_legend_width = -1;
    mutable std::vector<std::pair<QPoint, QStaticText>> m_legend; // parallel to m_parts
};

} // namespace iterscope::ui
