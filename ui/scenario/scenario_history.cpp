#include "scenario/scenario_history.h"

#include <QAction>
#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace iterscope::ui {
namespace {

constexpr int kDragCommandId = 1; // QUndoStack merges commands of equal id (mergeWith)

QString shortNetwork(const QString& network) {
    return network.contains(QLatin1Char('/')) ? QFileInfo(network).fileName() : network;
}

class ChangeScenario : public QUndoCommand {
  public:
    ChangeScenario(ScenarioHistory* history, const ScenarioSettings& before,
                   const ScenarioSettings& after, int drag)
        : m_history(history)
        , m_before(before)
        , m_after(after)
        , m_drag(drag) {
        setText(ScenarioHistory::describeChange(before, after));
    }

    int id() const override { return m_drag ? kDragCommandId : -1; }

    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const ChangeScenario*>(other);
        if (next->m_drag != m_drag)
            return false;
        m_after = next->m_after;
        setText(ScenarioHistory::describeChange(m_before, m_after));
        if (m_after == m_before)
            setObsolete(true); // dragged back to where it started: no step at all
        return true;
    }

    void undo() override {
        emit m_history->apply(m_before);
        if (m_drop)
            setObsolete(true); // QUndoStack deletes it instead of keeping it for redo
    }

    void redo() override {
        if (m_first) { // recorded after the fact: the change is already on screen
            m_first = false;
            return;
        }
        emit m_history->apply(m_after);
    }

    void markDropped() { m_drop = true; }
    const ScenarioSettings& after() const { return m_after; }

  private:
    ScenarioHistory* m_history;
    ScenarioSettings m_before;
    ScenarioSettings m_after;
    int m_drag = 0;
    bool m_first = true;
    bool m_drop = false;
};

} // namespace

ScenarioHistory::ScenarioHistory(QObject* parent)
    : QObject(parent)
    , m_stack(new QUndoStack(this)) {
    m_undo = m_stack->createUndoAction(this, tr("&Undo"));
    m_undo->setShortcuts(QKeySequence::Undo);
    m_redo = m_stack->createRedoAction(this, tr("&Redo"));
    // QKeySequence::Redo is Ctrl+Shift+Z on some platforms and Ctrl+Y on others, and
    // may be empty under a bare X11 window manager: both, explicitly.
    m_redo->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    if (m_undo->shortcuts().isEmpty())
        m_undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
}

void ScenarioHistory::record(const ScenarioSettings& before, const ScenarioSettings& after,
                             int drag) {
    if (before == after)
        return;
    m_stack->push(new ChangeScenario(this, before, after, drag));
}

const ScenarioSettings* ScenarioHistory::latestAfter() const {
    if (m_stack->index() == 0)
        return nullptr;
    return &static_cast<const ChangeScenario*>(m_stack->command(m_stack->index() - 1))->after();
}

void ScenarioHistory::dropLatest() {
    if (m_stack->index() == 0)
        return;
    // QUndoStack hands out its commands as const; they are ours, made in record().
    auto* latest = static_cast<const ChangeScenario*>(m_stack->command(m_stack->index() - 1));
    const_cast<ChangeScenario*>(latest)->markDropped();
    m_stack->undo();
}

void ScenarioHistory::clear() {
    m_stack->clear();
}

QString ScenarioHistory::describeChange(const ScenarioSettings& a, const ScenarioSettings& b) {
    const auto change = [](const QString& what, const QString& from, const QString& to) {
        return tr("%1 %2 → %3").arg(what, from, to);
    };
    if (a.network != b.network)
        return change(tr("network"), shortNetwork(a.network), shortNetwork(b.network));
    if (a.gpu != b.gpu)
        return change(tr("GPU"), a.gpu, b.gpu);
    if (a.system != b.system)
        return change(tr("system"), a.system, b.system);
    if (a.totalGpus() != b.totalGpus() || a.nodes != b.nodes)
        return change(tr("GPUs"), QStringLiteral("%1×%2").arg(a.nodes).arg(a.gpus_per_node),
                      QStringLiteral("%1×%2").arg(b.nodes).arg(b.gpus_per_node));
    if (a.batch != b.batch)
        return change(tr("batch"), QString::number(a.batch), QString::number(b.batch));
    if (a.image != b.image)
        return change(tr("image size"), QString::number(a.image), QString::number(b.image));
    if (a.precision != b.precision)
        return change(tr("precision"), a.precision, b.precision);
    if (a.software != b.software)
        return change(tr("software"), a.software, b.software);
    if (a.sync != b.sync)
        return change(tr("strategy"), a.sync.isEmpty() ? tr("default") : a.sync,
                      b.sync.isEmpty() ? tr("default") : b.sync);
    if (a.parallel != b.parallel)
        return change(tr("parallel"), a.parallel, b.parallel);
    if (a.pipeline_stages != b.pipeline_stages)
        return change(tr("stages"), QString::number(a.pipeline_stages),
                      QString::number(b.pipeline_stages));
    if (a.micro_batches != b.micro_batches) {
        const auto micro = [](int m) { return m == 0 ? tr("auto") : QString::number(m); };
        return change(tr("micro-batches"), micro(a.micro_batches), micro(b.micro_batches));
    }
    if (a.schedule != b.schedule)
        return change(tr("schedule"), a.schedule, b.schedule);
    if (a.allreduce != b.allreduce)
        return change(tr("all-reduce"), a.allreduce, b.allreduce);
    if (a.overlap != b.overlap)
        return b.overlap ? tr("overlap on") : tr("overlap off");
    if (a.bucket_mb != b.bucket_mb)
        return change(tr("bucket"), QString::number(a.bucket_mb), QString::number(b.bucket_mb));
    return tr("scenario");
}

} // namespace iterscope::ui
