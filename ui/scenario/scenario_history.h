// Undo and redo of scenario changes: one QUndoStack that owns the Undo and Redo actions
// (as Hotspot's zoom and filter state does). Every change of the scenario, from a control,
// a menu or an opened file, is one step; the changes of one slider drag merge into one.
// Pins, the layer filter and the view are not part of the scenario.
#pragma once

#include "scenario/scenario_settings.h"

#include <QObject>

QT_BEGIN_NAMESPACE
class QAction;
class QUndoStack;
QT_END_NAMESPACE

namespace iterscope::ui {

class ScenarioHistory : public QObject {
    Q_OBJECT
  public:
    explicit ScenarioHistory(QObject* parent = nullptr);

    // Records a change already made. `drag` non-zero: merged with the previous step when
    // that one has the same drag (ScenarioPanel::activeDrag()).
    void record(const ScenarioSettings& before, const ScenarioSettings& after, int drag = 0);
    // Takes back the newest step without leaving it to redo (a network that did not open):
    // emits apply() with the settings from before it.
    void dropLatest();
    // The settings of the newest step, if any (what dropLatest() would drop).
    const ScenarioSettings* latestAfter() const;
    void clear();

    QAction* undoAction() const { return m_undo; }
    QAction* redoAction() const { return m_redo; }
    QUndoStack* stack() const { return m_stack; }

    // "batch 64 → 128", "GPU v100-sxm2-16gb → a100-sxm4-80gb": the first difference, for
    // the Undo and Redo menu texts.
    static QString describeChange(const ScenarioSettings& before, const ScenarioSettings& after);

  signals:
    // Show and compute these settings (undo or redo happened).
    void apply(const iterscope::ui::ScenarioSettings& settings);

  private:
    QUndoStack* m_stack = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_redo = nullptr;
};

} // namespace iterscope::ui
