// The what-if controls: network, GPU, system, GPU count, batch, precision, software,
// parallel strategy (with a pipeline's stages, micro-batches and schedule), exchange
// strategy, overlap and bucket size. Edits a ScenarioSettings and says when it changed.
#pragma once

#include "scenario/scenario_settings.h"
#include "widgets/range_spin_box.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
QT_END_NAMESPACE

namespace iterscope::ui {

class ComputeCache;
class ElidedLabel;

class ScenarioPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ScenarioPanel(ComputeCache& cache, QWidget* parent = nullptr);

    ScenarioSettings settings() const;
    // Shows the settings without emitting settingsChanged; unknown ids are added.
    void setSettings(const ScenarioSettings& settings);

    QSlider* gpuCountSlider() const { return m_gpu_slider; }
    QSlider* batchSlider() const { return m_batch_slider; }
    QComboBox* systemCombo() const { return m_system; }
    QComboBox* gpuCombo() const { return m_gpu; }
    QComboBox* strategyCombo() const { return m_sync; }
    QComboBox* parallelCombo() const { return m_parallel; }
    RangeSpinBox* pipelineStagesSpin() const { return m_stages; }
    RangeSpinBox* microBatchesSpin() const { return m_micro_batches; }
    RangeSpinBox* nodesSpin() const { return m_nodes; }
    RangeSpinBox* gpusPerNodeSpin() const { return m_gpus_per_node; }
    RangeSpinBox* batchSpin() const { return m_batch; }
    QComboBox* scheduleCombo() const { return m_schedule; }
    // What the parallel strategy does here, or why it cannot apply (shown under its combo).
    QString parallelNote() const;
    // Enables the pipeline's controls for pipelines only, and disables (with the reason as
    // tooltip) the strategies and exchanges that cannot apply to the current choices. Also
    // for the window to call once a network has loaded (hybrid needs an FC layer).
    void updateAvailability();
    // Lists the GPU and system profiles afresh (the user saved or deleted one), keeping the
    // choices, without emitting settingsChanged. The user's own are marked "(yours)".
    void reloadHardware();
    // "32 GPUs = 4 nodes × 8 GPUs", as shown under the GPU slider.
    QString gpuCountLabel() const;
    // Non-zero while a slider is held down, the same for every change of one drag and
    // different for the next drag; 0 otherwise.
    int activeDrag() const { return m_dragging ? m_drag_serial : 0; }

  signals:
    void settingsChanged(const iterscope::ui::ScenarioSettings& settings);
    // A typed value was refused (out of range); the message says what and why.
    void refused(const QString& message);

  protected:
    // The undo and redo keys always undo the scenario, also in a box being edited (a spin
    // box would take them for its text).
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void populate();
    void fillHardware();
    void onGpuSlider(int exponent);
    void onLayoutSpins();
    void onBatchSlider(int exponent);
    void onBatchSpin(int batch);
    void onSystemChanged();
    void updateLimits();
    void updateLabels();
    // Why a parallel strategy cannot apply to the current choices; empty when it can.
    // `with_stages`: also when the GPUs do not split into its pipeline stages.
    QString parallelUnavailable(const QString& parallel, bool with_stages) const;
    void emitChanged();
    static void selectData(QComboBox* combo, const QString& value, const QString& label);

    ComputeCache& m_cache;
    QComboBox* m_network = nullptr;
    QComboBox* m_gpu = nullptr;
    ElidedLabel* m_gpu_summary = nullptr;
    QComboBox* m_system = nullptr;
    ElidedLabel* m_system_summary = nullptr;
    QSlider* m_gpu_slider = nullptr;
    ElidedLabel* m_gpu_count = nullptr;
    RangeSpinBox* m_nodes = nullptr;
    RangeSpinBox* m_gpus_per_node = nullptr;
    QSlider* m_batch_slider = nullptr;
    RangeSpinBox* m_batch = nullptr;
    RangeSpinBox* m_image = nullptr;
    QComboBox* m_precision = nullptr;
    QComboBox* m_software = nullptr;
    ElidedLabel* m_software_note = nullptr;
    QComboBox* m_parallel = nullptr;
    ElidedLabel* m_parallel_note = nullptr;
    RangeSpinBox* m_stages = nullptr;
    RangeSpinBox* m_micro_batches = nullptr;
    QComboBox* m_schedule = nullptr;
    QComboBox* m_sync = nullptr;
    QComboBox* m_allreduce = nullptr;
    QComboBox* m_layout = nullptr;
    QComboBox* m_data = nullptr;
    QCheckBox* m_overlap = nullptr;
    QDoubleSpinBox* m_bucket = nullptr;
    bool m_updating = false;
    bool m_dragging = false;
    int m_drag_serial = 0;
};

} // namespace iterscope::ui
