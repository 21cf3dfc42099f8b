#include "scenario/choice_names.h"

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
    case SyncStrategy::PsAsync:
        return tr("Asynchronous parameter servers");
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
    case AllreduceAlgorithm::Nvls:
        return tr("NVLS (reduced in the NVSwitch)");
    case AllreduceAlgorithm::CollNet:
        return tr("CollNet (reduced in SHARP switches)");
    default:
        break;
    }
    return QString::fromLatin1(allreduceAlgorithmName(a));
}

QString parallelStrategyTitle(ParallelStrategy p) {
    switch (p) {
    case ParallelStrategy::Data:
        return tr("Data parallel");
    case ParallelStrategy::Hybrid:
        return tr("Hybrid (FC layers split over a node)");
    case ParallelStrategy::Pipeline:
        return tr("Pipeline (stages on GPUs)");
    case ParallelStrategy::Zero1:
        return tr("ZeRO-1 (optimizer state sharded)");
    case ParallelStrategy::Zero2:
        return tr("ZeRO-2 (+ gradients sharded)");
    case ParallelStrategy::Zero3:
        return tr("ZeRO-3 / FSDP (+ parameters sharded)");
    }
    return QString::fromLatin1(parallelStrategyName(p));
}

QString pipelineScheduleTitle(PipelineSchedule p) {
    switch (p) {
    case PipelineSchedule::GPipe:
        return tr("GPipe (all forward, then all backward)");
    case PipelineSchedule::OneFOneB:
        return tr("1F1B (one forward, one backward)");
    }
    return QString::fromLatin1(pipelineScheduleName(p));
}

QString precisionTitle(Precision p) {
    switch (p) {
    case Precision::FP32:
        return tr("FP32");
    case Precision::TF32:
        return tr("TF32 tensor cores");
    case Precision::AMP:
        return tr("Mixed (FP16 tensor cores)");
    case Precision::BF16:
        return tr("Mixed (BF16 tensor cores)");
    default:
        break;
    }
    return QString::fromLatin1(precisionName(p)).toUpper();
}

std::vector<Precision> allPrecisions() {
    // The enum's values are consecutive from 0; the first that does not come back from its
    // own name is past the end.
    std::vector<Precision> out;
    for (int i = 0; i < 64; ++i) {
        const auto p = static_cast<Precision>(i);
        const auto back = parsePrecision(precisionName(p));
        if (!back || *back != p)
            break;
        out.push_back(p);
    }
    return out;
}

} // namespace iterscope::ui
