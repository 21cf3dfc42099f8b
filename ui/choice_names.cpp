#include "choice_names.h"

#include <QCoreApplication>

namespace iterscope::ui {
namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("iterscope::ui::ChoiceNames", text);
}
} // namespace

QString syncStrategyTitle(SyncStrategy s) {
    switch (s) {
    case SyncStrategy::None:
        return tr("No exchange");
    case SyncStrategy::AllreduceNccl:
        return tr("NCCL all-reduce");
    case SyncStrategy::AllreduceCopy:
        return tr("All-reduce by copies (no NCCL)");
    case SyncStrategy::PsCpu:
        return tr("Parameter server on the CPU");
    case SyncStrategy::PsGpu:
        return tr("Parameter servers on the GPUs");
    case SyncStrategy::DistributedReplicated:
        return tr("Local aggregation + parameter servers");
    default: // a strategy added later reads as its id until it gets a title here
        break;
    }
    return QString::fromLatin1(syncStrategyName(s));
}

QString syncStrategyTitle(const QString& id) {
    const auto s = parseSyncStrategy(id.toStdString());
    return s ? syncStrategyTitle(*s) : id;
}

QString allreduceAlgorithmTitle(AllreduceAlgorithm a) {
    switch (a) {
    case AllreduceAlgorithm::Auto:
        return tr("Auto (the fastest)");
    case AllreduceAlgorithm::Ring:
        return tr("Ring");
    case AllreduceAlgorithm::Tree:
        return tr("Tree");
    case AllreduceAlgorithm::Hierarchical:
        return tr("Hierarchical (inside nodes first)");
    default:
        break;
    }
    return QString::fromLatin1(allreduceAlgorithmName(a));
}

} // namespace iterscope::ui
