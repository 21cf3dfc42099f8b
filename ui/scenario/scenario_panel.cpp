#include "scenario/scenario_panel.h"

#include "prediction/predictor.h"
#include "scenario/choice_names.h"
#include "widgets/elided_label.h"
#include "widgets/range_spin_box.h"

#include "hardware/profile_loader.h"
#include "hardware/user_profiles.h"
#include "model/scenario.h"
#include "network/zoo.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>

#include <algorithm>
#include <bit>
#include <exception>

namespace iterscope::ui {
namespace {
int floorLog2(int v) {
    return v <= 1 ? 0 : std::bit_width(static_cast<unsigned>(v)) - 1;
}

// Two lines whatever the text: a longer description must not push the sliders down.
ElidedLabel* noteLabel(QWidget* parent) {
    auto* label = new ElidedLabel(parent, 2);
    label->setMuted(true);
    return label;
}

QString gpuCountText(int nodes, int per_node) {
    const int total = nodes * per_node;
    const QString gpus =
        total == 1 ? ScenarioPanel::tr("1 GPU") : ScenarioPanel::tr("%1 GPUs").arg(total);
    if (nodes == 1)
        return ScenarioPanel::tr("%1 in one node").arg(gpus);
    if (per_node == 1)
        return ScenarioPanel::tr("%1 = %2 nodes × 1 GPU").arg(gpus).arg(nodes);
    return ScenarioPanel::tr("%1 = %2 nodes × %3 GPUs").arg(gpus).arg(nodes).arg(per_node);
}

// Profiles listed by the name a person knows them by, not by file id.
template <typename Load>
std::vector<std::pair<QString, QString>> byName(const std::vector<std::string>& ids, Load load) {
    std::vector<std::pair<QString, QString>> out; // (name, id)
    for (const auto& id : ids)
        out.emplace_back(load(id), QString::fromStdString(id));
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return QString::localeAwareCompare(a.first, b.first) < 0;
    });
    return out;
}

// Fills `combo` with the profiles `ids`, by name; `load` gives an id's (name, tooltip). A
// profile that fails to load is listed (last) with its error rather than hidden, so a broken
// file in profiles/ is visible.
template <typename Load>
void fillProfiles(QComboBox* combo, const std::vector<std::string>& ids, const Load& load) {
    std::vector<std::pair<QString, QString>> broken; // (id, error)
    const auto named = byName(ids, [&](const std::string& id) -> QString {
        try {
            return load(QString::fromStdString(id)).first;
        } catch (const std::exception& e) {
            broken.emplace_back(QString::fromStdString(id), QString::fromStdString(e.what()));
            return {};
        }
    });
    for (const auto& [name, id] : named) {
        if (std::any_of(broken.begin(), broken.end(),
                        [&id = id](const auto& b) { return b.first == id; }))
            continue;
        combo->addItem(name, id);
        combo->setItemData(combo->count() - 1, load(id).second, Qt::ToolTipRole);
    }
    for (const auto& [id, error] : broken) {
        combo->addItem(id + ScenarioPanel::tr(" (broken profile)"), id);
        combo->setItemData(combo->count() - 1, error, Qt::ToolTipRole);
    }
}

// The user's own profiles carry a mark in the boxes: the ones the editor may change.
QString markedName(const std::string& name, ProfileKind kind, const QString& id) {
    const QString shown = QString::fromStdString(name);
    return isUserProfile(kind, id.toStdString()) ? ScenarioPanel::tr("%1 (yours)").arg(shown)
                                                 : shown;
}

const SyncStrategy kStrategies[] = {
    SyncStrategy::AllreduceNccl, SyncStrategy::AllreduceCopy,         SyncStrategy::PsCpu,
    SyncStrategy::PsGpu,         SyncStrategy::DistributedReplicated, SyncStrategy::PsAsync};
const ParallelStrategy kParallel[] = {ParallelStrategy::Data,     ParallelStrategy::Hybrid,
                                      ParallelStrategy::Pipeline, ParallelStrategy::Zero1,
                                      ParallelStrategy::Zero2,    ParallelStrategy::Zero3};
const PipelineSchedule kSchedules[] = {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB};

// Greys out a combo item and says why in its tooltip (the default tooltip otherwise).
void setItemAvailable(QComboBox* combo, int index, const QString& why, const QString& tip) {
    if (auto* model = qobject_cast<QStandardItemModel*>(combo->model()))
        if (QStandardItem* item = model->item(index))
            item->setEnabled(why.isEmpty());
    combo->setItemData(index, why.isEmpty() ? tip : why, Qt::ToolTipRole);
}

bool isCollectiveSync(const QString& id) {
    return id == QLatin1String("allreduce-nccl") || id == QLatin1String("allreduce-copy");
}
const AllreduceAlgorithm kAlgorithms[] = {
    AllreduceAlgorithm::Auto,         AllreduceAlgorithm::Ring, AllreduceAlgorithm::Tree,
    AllreduceAlgorithm::Hierarchical, AllreduceAlgorithm::Nvls, AllreduceAlgorithm::CollNet};
} // namespace

ScenarioPanel::ScenarioPanel(ComputeCache& cache, QWidget* parent)
    : QWidget(parent)
    , m_cache(cache) {
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);

    m_network = new QComboBox(this);
    m_network->setToolTip(tr("The network to train: a built-in one, or a file opened with "
                             "File › Open (.onnx, .prototxt, .json)"));
    form->addRow(tr("&Network:"), m_network);

    m_gpu = new QComboBox(this);
    m_gpu->setToolTip(tr("The GPU model, described by its spec sheet (profiles/gpus)"));
    m_gpu_summary = noteLabel(this);
    form->addRow(tr("&GPU:"), m_gpu);
    form->addRow(QString(), m_gpu_summary);

    m_system = new QComboBox(this);
    m_system->setToolTip(tr("The machine and interconnect: PCIe tree, NVLink or NVSwitch "
                            "inside a node, Ethernet or InfiniBand between nodes"));
    m_system_summary = noteLabel(this);
    form->addRow(tr("S&ystem:"), m_system);
    form->addRow(QString(), m_system_summary);

    m_gpu_slider = new QSlider(Qt::Horizontal, this);
    m_gpu_slider->setRange(0, floorLog2(ScenarioSettings::kMaxGpus));
    m_gpu_slider->setPageStep(1);
    m_gpu_slider->setTickPosition(QSlider::TicksBelow);
    m_gpu_slider->setToolTip(tr("GPUs in total, in powers of two from 1 to 1024; nodes fill "
                                "up first"));
    m_gpu_count = new ElidedLabel(this);
    form->addRow(tr("GPUs in &total:"), m_gpu_slider);
    form->addRow(QString(), m_gpu_count);

    auto* layout_row = new QHBoxLayout;
    m_nodes = new RangeSpinBox(this);
    m_nodes->setToolTip(tr("Nodes (machines) joined by the system's network"));
    m_gpus_per_node = new RangeSpinBox(this);
    m_gpus_per_node->setToolTip(tr("GPUs used in each node, at most what the system holds"));
    layout_row->addWidget(m_nodes);
    layout_row->addWidget(new QLabel(tr("nodes ×"), this));
    layout_row->addWidget(m_gpus_per_node);
    layout_row->addWidget(new QLabel(tr("GPUs/node"), this));
    layout_row->addStretch();
    form->addRow(tr("Layout:"), layout_row);

    auto* batch_row = new QHBoxLayout;
    m_batch_slider = new QSlider(Qt::Horizontal, this);
    m_batch_slider->setRange(0, floorLog2(ScenarioSettings::kMaxBatch));
    m_batch_slider->setPageStep(1);
    m_batch_slider->setTickPosition(QSlider::TicksBelow);
    m_batch_slider->setToolTip(tr("Minibatch per GPU, in powers of two from 1 to 1024; the "
                                  "box beside it takes any value"));
    m_batch = new RangeSpinBox(this);
    m_batch->setRange(1, ScenarioSettings::kMaxBatch);
    m_batch->setToolTip(tr("Minibatch per GPU (images each GPU processes per iteration)"));
    batch_row->addWidget(m_batch_slider, 1);
    batch_row->addWidget(m_batch);
    form->addRow(tr("Batch per GPU:"), batch_row);

    m_image = new RangeSpinBox(this);
    m_image->setRange(0, 1024);
    m_image->setSpecialValueText(tr("network default"));
    m_image->setSuffix(tr(" px"));
    m_image->setToolTip(tr("Square input image size; the network's own (224, 227 or 299) "
                           "when left at its default"));
    form->addRow(tr("&Image size:"), m_image);

    m_precision = new QComboBox(this);
    // From the core's list, so a precision it gains appears here by itself.
    for (const Precision precision : allPrecisions()) {
        const QString id = QString::fromLatin1(precisionName(precision));
        m_precision->addItem(precisionTitle(precision), id);
        m_precision->setItemData(m_precision->count() - 1, tr("--precision %1").arg(id),
                                 Qt::ToolTipRole);
    }
    m_precision->setToolTip(tr("Arithmetic: plain FP32 lanes, TF32 tensor cores (Ampere and "
                               "later), or mixed precision with FP32 master weights on FP16 "
                               "tensor cores (with a loss scaler) or BF16 ones (Ampere and "
                               "later, no loss scaling)"));
    form->addRow(tr("&Precision:"), m_precision);

    m_software = new QComboBox(this);
    m_software->setToolTip(tr("Framework and cuDNN generation: per-layer overhead, "
                              "convolution algorithms and efficiencies (profiles/software)"));
    form->addRow(tr("&Software:"), m_software);
    // Framework names are longer than the box: the whole name, then what it stands for.
    m_software_note = noteLabel(this);
    m_software_note->setObjectName(QStringLiteral("softwareNote"));
    form->addRow(QString(), m_software_note);

    // The harness: what the framework does unless told otherwise ("auto", the software
    // profile's), or what the person's own script does.
    auto* harness_row = new QHBoxLayout;
    m_layout = new QComboBox(this);
    m_layout->setObjectName(QStringLiteral("layoutCombo"));
    m_layout->setToolTip(tr("Memory layout of activations: NCHW (PyTorch's own) makes cuDNN "
                            "transpose around tensor-core convolutions; NHWC (channels-last) "
                            "runs them natively"));
    m_layout->addItem(tr("Default layout"), QStringLiteral("auto"));
    m_layout->addItem(tr("NCHW"), QStringLiteral("nchw"));
    m_layout->addItem(tr("NHWC (channels-last)"), QStringLiteral("nhwc"));
    m_data = new QComboBox(this);
    m_data->setObjectName(QStringLiteral("dataCombo"));
    m_data->setToolTip(tr("Where images come from: real ones decoded and augmented by the "
                          "host every iteration, or synthetic ones made once on the GPU"));
    m_data->addItem(tr("Default data"), QStringLiteral("auto"));
    m_data->addItem(tr("Real images"), QStringLiteral("real"));
    m_data->addItem(tr("Synthetic data"), QStringLiteral("synthetic"));
    for (QComboBox* combo : {m_layout, m_data}) {
        for (int i = 0; i < combo->count(); ++i)
            combo->setItemData(i,
                               tr("%1 %2").arg(combo == m_layout ? QStringLiteral("--layout")
                                                                 : QStringLiteral("--data"),
                                               combo->itemData(i).toString()),
                               Qt::ToolTipRole);
        harness_row->addWidget(combo, 1);
    }
    auto* harness_label = new QLabel(tr("Ha&rness:"), this);
    harness_label->setBuddy(m_layout);
    form->addRow(harness_label, harness_row);

    // What each GPU computes and holds; docs/model.md "Parallel strategies".
    m_parallel = new QComboBox(this);
    m_parallel->setToolTip(tr("Parallel strategy: every GPU the whole network (data), FC "
                              "layers split over a node (hybrid), the network cut into "
                              "stages (pipeline), or optimizer state, gradients and "
                              "parameters sharded (ZeRO-1, 2, 3 / FSDP)"));
    for (auto parallel : kParallel) {
        const QString id = QString::fromLatin1(parallelStrategyName(parallel));
        m_parallel->addItem(parallelStrategyTitle(parallel), id);
        m_parallel->setItemData(m_parallel->count() - 1, tr("--parallel %1").arg(id),
                                Qt::ToolTipRole);
    }
    m_parallel_note = noteLabel(this);
    m_parallel_note->setObjectName(QStringLiteral("parallelNote"));
    form->addRow(tr("Para&llel:"), m_parallel);
    form->addRow(QString(), m_parallel_note);

    auto* pipeline_row = new QHBoxLayout;
    m_stages = new RangeSpinBox(this);
    // As wide as a session may ask for, so any saved value shows as it was; the model
    // says which counts fit the GPUs.
    m_stages->setRange(1, ScenarioSettings::kMaxGpus);
    m_stages->setToolTip(tr("Pipeline stages: consecutive GPUs that each run a slice of the "
                            "network, balanced by predicted time; the GPU count must be a "
                            "multiple of it"));
    m_micro_batches = new RangeSpinBox(this);
    m_micro_batches->setRange(0, ScenarioSettings::kMaxMicroBatches);
    m_micro_batches->setSpecialValueText(tr("auto"));
    m_micro_batches->setToolTip(tr("Micro-batches a pipeline's batch (batch per GPU × stages) "
                                   "is cut into; auto: four per stage (GPipe's advice), or "
                                   "the most below that which divide the batch"));
    pipeline_row->addWidget(m_stages);
    pipeline_row->addWidget(new QLabel(tr("stages ×"), this));
    pipeline_row->addWidget(m_micro_batches);
    pipeline_row->addWidget(new QLabel(tr("micro"), this));
    pipeline_row->addStretch();
    // A row of several widgets gets no buddy from the form: the mnemonic needs one.
    auto* pipeline_label = new QLabel(tr("Pip&eline:"), this);
    pipeline_label->setBuddy(m_stages);
    form->addRow(pipeline_label, pipeline_row);

    m_schedule = new QComboBox(this);
    m_schedule->setToolTip(tr("The order a stage runs its micro-batches: GPipe, every forward "
                              "then every backward; 1F1B, one forward then one backward once "
                              "the pipe is full (less activation memory, same bubble)"));
    for (auto schedule : kSchedules) {
        const QString id = QString::fromLatin1(pipelineScheduleName(schedule));
        m_schedule->addItem(pipelineScheduleTitle(schedule), id);
        m_schedule->setItemData(m_schedule->count() - 1, tr("--schedule %1").arg(id),
                                Qt::ToolTipRole);
    }
    form->addRow(tr("Sc&hedule:"), m_schedule);

    m_sync = new QComboBox(this);
    m_sync->setToolTip(tr("How gradients are exchanged: NCCL all-reduce, plain copies, a "
                          "parameter server on the CPU or sharded over the GPUs, or local "
                          "aggregation then parameter servers across nodes"));
    m_sync->addItem(tr("Platform default"), QString());
    for (auto strategy : kStrategies) {
        const QString id = QString::fromLatin1(syncStrategyName(strategy));
        m_sync->addItem(syncStrategyTitle(strategy), id);
        m_sync->setItemData(m_sync->count() - 1, tr("--sync %1").arg(id), Qt::ToolTipRole);
    }
    form->addRow(tr("E&xchange:"), m_sync);

    m_allreduce = new QComboBox(this);
    m_allreduce->setToolTip(tr("All-reduce algorithm: ring (bandwidth-optimal), tree "
                               "(latency-optimal), hierarchical (inside nodes first), or auto "
                               "to let the model choose the fastest"));
    for (auto algorithm : kAlgorithms) {
        const QString id = QString::fromLatin1(allreduceAlgorithmName(algorithm));
        m_allreduce->addItem(allreduceAlgorithmTitle(algorithm), id);
        m_allreduce->setItemData(m_allreduce->count() - 1, tr("--allreduce %1").arg(id),
                                 Qt::ToolTipRole);
    }
    form->addRow(tr("&All-reduce:"), m_allreduce);

    m_overlap = new QCheckBox(tr("Overlap backward"), this);
    m_overlap->setToolTip(tr("Overlap the exchange with backward: send each gradient bucket "
                             "as soon as backward has produced it (wait-free "
                             "backpropagation), instead of after backward ends"));

    m_bucket = new QDoubleSpinBox(this);
    m_bucket->setKeyboardTracking(false); // one edit, one change: on Enter or focus-out
    m_bucket->setRange(0.25, 1024);
    m_bucket->setDecimals(2);
    m_bucket->setSuffix(tr(" MB"));
    m_bucket->setToolTip(tr("Gradient bucket size: gradients travel in buckets of this size "
                            "(PyTorch DDP uses 25 MB)"));
    // Bucket size and overlap share a row: both say how gradients travel, and the panel
    // must fit a 1280×720 screen.
    auto* bucket_row = new QHBoxLayout;
    bucket_row->addWidget(m_bucket, 1);
    bucket_row->addWidget(m_overlap);
    auto* bucket_label = new QLabel(tr("B&ucket size:"), this);
    bucket_label->setBuddy(m_bucket);
    form->addRow(bucket_label, bucket_row);

    populate();
    // Long profile names would otherwise make the panel as wide as the longest of them.
    for (auto* combo : findChildren<QComboBox*>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(combo == m_layout || combo == m_data ? 8 : 18);
    }
    for (auto* box : findChildren<QAbstractSpinBox*>())
        box->installEventFilter(this);
    for (auto* spin : findChildren<RangeSpinBox*>())
        connect(spin, &RangeSpinBox::refused, this, &ScenarioPanel::refused);
    m_batch->setRangeReason(tr("the batch slider's range"));
    setSettings(ScenarioSettings{});

    const auto changed = [this] { emitChanged(); };
    connect(m_network, &QComboBox::currentIndexChanged, this, changed);
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this] {
        updateLabels();
        emitChanged();
    });
    connect(m_system, &QComboBox::currentIndexChanged, this, &ScenarioPanel::onSystemChanged);
    connect(m_gpu_slider, &QSlider::valueChanged, this, &ScenarioPanel::onGpuSlider);
    connect(m_nodes, &QSpinBox::valueChanged, this, &ScenarioPanel::onLayoutSpins);
    connect(m_gpus_per_node, &QSpinBox::valueChanged, this, &ScenarioPanel::onLayoutSpins);
    connect(m_batch_slider, &QSlider::valueChanged, this, &ScenarioPanel::onBatchSlider);
    connect(m_batch, &QSpinBox::valueChanged, this, &ScenarioPanel::onBatchSpin);
    connect(m_image, &QSpinBox::valueChanged, this, changed);
    connect(m_precision, &QComboBox::currentIndexChanged, this, [this] {
        updateLabels(); // the default layout depends on the precision
        emitChanged();
    });
    connect(m_layout, &QComboBox::currentIndexChanged, this, changed);
    connect(m_data, &QComboBox::currentIndexChanged, this, changed);
    connect(m_software, &QComboBox::currentIndexChanged, this, [this] {
        updateLabels();
        emitChanged();
    });
    // A drag is one gesture: the undo history keeps it as one step (activeDrag()).
    for (QSlider* slider : {m_gpu_slider, m_batch_slider}) {
        connect(slider, &QSlider::sliderPressed, this, [this] {
            ++m_drag_serial;
            m_dragging = true;
        });
        connect(slider, &QSlider::sliderReleased, this, [this] { m_dragging = false; });
    }
    const auto availability_changed = [this] {
        updateAvailability();
        emitChanged();
    };
    connect(m_network, &QComboBox::currentIndexChanged, this, [this] { updateAvailability(); });
    connect(m_sync, &QComboBox::currentIndexChanged, this, availability_changed);
    connect(m_parallel, &QComboBox::currentIndexChanged, this, availability_changed);
    connect(m_stages, &QSpinBox::valueChanged, this, availability_changed);
    connect(m_micro_batches, &QSpinBox::valueChanged, this, changed);
    connect(m_schedule, &QComboBox::currentIndexChanged, this, changed);
    connect(m_allreduce, &QComboBox::currentIndexChanged, this, changed);
    connect(m_overlap, &QCheckBox::toggled, this, changed);
    connect(m_bucket, &QDoubleSpinBox::valueChanged, this, changed);
}

void ScenarioPanel::populate() {
    // A separator between families (zooIds() keeps each family's ids together).
    std::string_view family;
    for (const auto& id : zooIds()) {
        if (m_network->count() > 0 && zooFamily(id) != family)
            m_network->insertSeparator(m_network->count());
        family = zooFamily(id);
        m_network->addItem(QString::fromStdString(id), QString::fromStdString(id));
        m_network->setItemData(
            m_network->count() - 1,
            QString::fromUtf8(family.data(), static_cast<qsizetype>(family.size())),
            Qt::ToolTipRole);
    }
    fillHardware();
    fillProfiles(m_software, softwareIds(), [this](const QString& id) {
        const auto software = m_cache.software(id);
        return std::pair{
            QString::fromStdString(software.name.empty() ? software.id : software.name),
            QString::fromStdString(software.description)};
    });
}

void ScenarioPanel::fillHardware() {
    fillProfiles(m_gpu, gpuIds(), [this](const QString& id) {
        const auto gpu = m_cache.gpu(id);
        return std::pair{markedName(gpu.name, ProfileKind::Gpu, id),
                         QString::fromStdString(gpuSummary(gpu))};
    });
    fillProfiles(m_system, systemIds(), [this](const QString& id) {
        const auto system = m_cache.system(id);
        return std::pair{markedName(system.name, ProfileKind::System, id),
                         QString::fromStdString(systemSummary(system))};
    });
}

void ScenarioPanel::reloadHardware() {
    const QSignalBlocker gpu_blocker(m_gpu), system_blocker(m_system);
    const QString gpu = m_gpu->currentData().toString();
    const QString system = m_system->currentData().toString();
    m_gpu->clear();
    m_system->clear();
    fillHardware();
    selectData(m_gpu, gpu, {});
    selectData(m_system, system, {});
    updateLabels();
}

void ScenarioPanel::selectData(QComboBox* combo, const QString& value, const QString& label) {
    int index = combo->findData(value);
    if (index < 0) {
        combo->addItem(label.isEmpty() ? value : label, value);
        combo->setItemData(combo->count() - 1, value, Qt::ToolTipRole);
        index = combo->count() - 1;
    }
    combo->setCurrentIndex(index);
}

ScenarioSettings ScenarioPanel::settings() const {
    ScenarioSettings s;
    s.network = m_network->currentData().toString();
    s.gpu = m_gpu->currentData().toString();
    s.system = m_system->currentData().toString();
    s.software = m_software->currentData().toString();
    s.nodes = m_nodes->value();
    s.gpus_per_node = m_gpus_per_node->value();
    s.batch = m_batch->value();
    s.image = m_image->value();
    s.precision = m_precision->currentData().toString();
    s.sync = m_sync->currentData().toString();
    s.allreduce = m_allreduce->currentData().toString();
    s.overlap = m_overlap->isChecked();
    s.bucket_mb = m_bucket->value();
    s.layout = m_layout->currentData().toString();
    s.data = m_data->currentData().toString();
    s.parallel = m_parallel->currentData().toString();
    s.pipeline_stages = m_stages->value();
    s.micro_batches = m_micro_batches->value();
    s.schedule = m_schedule->currentData().toString();
    return s;
}

void ScenarioPanel::setSettings(const ScenarioSettings& s) {
    const QSignalBlocker blockers[] = {
        QSignalBlocker(m_network),      QSignalBlocker(m_gpu),      QSignalBlocker(m_system),
        QSignalBlocker(m_gpu_slider),   QSignalBlocker(m_nodes),    QSignalBlocker(m_gpus_per_node),
        QSignalBlocker(m_batch_slider), QSignalBlocker(m_batch),    QSignalBlocker(m_image),
        QSignalBlocker(m_precision),    QSignalBlocker(m_software), QSignalBlocker(m_sync),
        QSignalBlocker(m_allreduce),    QSignalBlocker(m_overlap),  QSignalBlocker(m_bucket),
        QSignalBlocker(m_parallel),     QSignalBlocker(m_stages),   QSignalBlocker(m_micro_batches),
        QSignalBlocker(m_schedule),     QSignalBlocker(m_layout),   QSignalBlocker(m_data)};
    selectData(m_network, s.network,
               s.network.contains(QLatin1Char('/')) ? QFileInfo(s.network).fileName() : s.network);
    selectData(m_gpu, s.gpu, {});
    selectData(m_system, s.system, {});
    // A profile file (one `fit` wrote) reads as its file name; the tooltip has the path.
    selectData(m_software, s.software,
               s.software.contains(QLatin1Char('/')) ? QFileInfo(s.software).fileName()
                                                     : QString());
    selectData(m_precision, s.precision, {});
    selectData(m_sync, s.sync, {});
    selectData(m_allreduce, s.allreduce, {});
    selectData(m_layout, s.layout, {});
    selectData(m_data, s.data, {});
    selectData(m_parallel, s.parallel, {});
    selectData(m_schedule, s.schedule, {});
    updateLimits();
    m_nodes->setValue(s.nodes);
    m_gpus_per_node->setValue(s.gpus_per_node);
    m_gpu_slider->setValue(floorLog2(s.totalGpus()));
    m_batch->setValue(s.batch);
    m_batch_slider->setValue(floorLog2(s.batch));
    m_image->setValue(s.image);
    m_overlap->setChecked(s.overlap);
    m_bucket->setValue(s.bucket_mb);
    m_stages->setValue(s.pipeline_stages);
    m_micro_batches->setValue(s.micro_batches);
    updateLabels();
}

void ScenarioPanel::updateLimits() {
    int per_node = 8, max_nodes = 1;
    try {
        const auto system = m_cache.system(m_system->currentData().toString());
        per_node = std::max(1, system.gpus_per_node);
        max_nodes = std::max(1, system.max_nodes);
    } catch (const std::exception&) {
        // The summary shows the load error once the prediction fails.
    }
    m_gpus_per_node->setRange(1, std::min(per_node, ScenarioSettings::kMaxGpus));
    m_nodes->setRange(1, std::min(max_nodes, ScenarioSettings::kMaxGpus));
    const QString system = m_system->currentText();
    m_gpus_per_node->setRangeReason(tr("a node of the %1 holds %2").arg(system).arg(per_node));
    m_nodes->setRangeReason(max_nodes == 1
                                ? tr("the %1 is one machine").arg(system)
                                : tr("the %1 has at most %2").arg(system).arg(max_nodes));
    int max_exponent = 0;
    while (max_exponent < floorLog2(ScenarioSettings::kMaxGpus) &&
           (1 << (max_exponent + 1)) <= per_node * max_nodes)
        ++max_exponent;
    m_gpu_slider->setMaximum(max_exponent);
}

void ScenarioPanel::updateLabels() {
    m_gpu_count->setText(gpuCountText(m_nodes->value(), m_gpus_per_node->value()));
    const QString gpu_text = m_gpu->currentData(Qt::ToolTipRole).toString();
    m_gpu_summary->setText(gpu_text);
    m_gpu_summary->setExplanation(gpu_text);
    const QString system_text = m_system->currentData(Qt::ToolTipRole).toString();
    m_system_summary->setText(system_text);
    m_system_summary->setExplanation(system_text);
    const QString software_text = tr("%1: %2").arg(
        m_software->currentText(), m_software->currentData(Qt::ToolTipRole).toString());
    m_software_note->setText(software_text);
    m_software_note->setExplanation(software_text);
    // "Platform default" says which strategy that is for the chosen software, and the
    // harness's defaults what layout and data it runs with.
    QString default_sync, default_layout, default_data;
    try {
        const SoftwareProfile software = m_cache.software(m_software->currentData().toString());
        default_sync = syncStrategyTitle(QString::fromStdString(software.default_sync));
        Scenario probe;
        probe.software = software;
        probe.precision =
            requirePrecision(m_precision->currentData().toString().toStdString(), "precision");
        default_layout = probe.nhwc() ? tr("NHWC") : tr("NCHW");
        default_data = probe.realData() ? tr("real") : tr("synthetic");
    } catch (const std::exception&) {
    }
    m_layout->setItemText(0, default_layout.isEmpty() ? tr("Default layout")
                                                      : tr("Default (%1)").arg(default_layout));
    m_data->setItemText(0, default_data.isEmpty() ? tr("Default data")
                                                  : tr("Default (%1)").arg(default_data));
    m_sync->setItemText(0, default_sync.isEmpty() ? tr("Platform default")
                                                  : tr("Platform default (%1)").arg(default_sync));
    updateAvailability();
}

QString ScenarioPanel::parallelUnavailable(const QString& parallel, bool with_stages) const {
    const int gpus = m_nodes->value() * m_gpus_per_node->value();
    if (parallel == QLatin1String("data"))
        return {};
    if (gpus < 2)
        return tr("%1 needs at least 2 GPUs: one GPU has nothing to split or shard, and "
                  "trains data-parallel")
            .arg(m_parallel->itemText(std::max(0, m_parallel->findData(parallel))));
    QString sync = m_sync->currentData().toString();
    if (sync.isEmpty()) {
        try {
            sync = QString::fromStdString(
                m_cache.software(m_software->currentData().toString()).default_sync);
        } catch (const std::exception&) {
        }
    }
    const bool one_pipeline = parallel == QLatin1String("pipeline") && gpus <= m_stages->value();
    if (!sync.isEmpty() && !isCollectiveSync(sync) && !one_pipeline)
        return tr("Exchanges gradients by collectives: choose the NCCL all-reduce or "
                  "all-reduce by copies, not %1")
            .arg(syncStrategyTitle(sync));
    if (parallel == QLatin1String("hybrid")) {
        // Only a network already loaded is looked at: loading one here would stall the
        // GUI thread on a big file, and the model refuses it with the same words anyway.
        const QString network = m_network->currentData().toString();
        if (m_cache.hasNetwork(network, m_image->value())) {
            const auto net = m_cache.network(network, m_image->value());
            const auto& layers = net->network.layers;
            if (std::none_of(layers.begin(), layers.end(), [](const Layer& l) {
                    return l.kind == LayerKind::FullyConnected && l.fc.flatten;
                }))
                return tr("Hybrid splits fully connected layers over a node's GPUs, and this "
                          "network has none");
        }
    }
    if (with_stages && parallel == QLatin1String("pipeline") && gpus % m_stages->value() != 0)
        return tr("%1 GPUs do not split into pipelines of %2 stages")
            .arg(gpus)
            .arg(m_stages->value());
    return {};
}

void ScenarioPanel::updateAvailability() {
    for (int i = 0; i < m_parallel->count(); ++i) {
        const QString id = m_parallel->itemData(i).toString();
        // A pipeline stays choosable when only its stage count is wrong: that is fixed
        // beside the combo, and the note says so.
        setItemAvailable(m_parallel, i, parallelUnavailable(id, false),
                         tr("--parallel %1").arg(id));
    }
    const bool data_parallel = m_parallel->currentData().toString() == QLatin1String("data");
    for (int i = 0; i < m_sync->count(); ++i) {
        const QString id = m_sync->itemData(i).toString();
        const QString why = id == QLatin1String("ps-async") && !data_parallel
                                ? tr("Asynchronous parameter servers exchange whole gradients: "
                                     "data parallelism only")
                                : QString();
        if (i > 0)
            setItemAvailable(m_sync, i, why, tr("--sync %1").arg(id));
    }
    const bool pipeline = m_parallel->currentData().toString() == QLatin1String("pipeline");
    for (QWidget* w : std::initializer_list<QWidget*>{m_stages, m_micro_batches, m_schedule})
        w->setEnabled(pipeline);
    const QString note = parallelNote();
    m_parallel_note->setText(note);
    m_parallel_note->setExplanation(note);
}

QString ScenarioPanel::parallelNote() const {
    const QString parallel = m_parallel->currentData().toString();
    if (const QString why = parallelUnavailable(parallel, true); !why.isEmpty())
        return why;
    const int gpus = m_nodes->value() * m_gpus_per_node->value();
    if (parallel == QLatin1String("hybrid"))
        return tr("Convolutions data-parallel; FC layers split over each node's %1 GPUs")
            .arg(m_gpus_per_node->value());
    if (parallel == QLatin1String("pipeline")) {
        const int stages = m_stages->value();
        const int replicas = gpus / stages;
        return replicas == 1 ? tr("One pipeline of %1 stages, batch %2")
                                   .arg(stages)
                                   .arg(m_batch->value() * stages)
                             : tr("%1 pipelines of %2 stages, batch %3 each")
                                   .arg(replicas)
                                   .arg(stages)
                                   .arg(m_batch->value() * stages);
    }
    if (parallel == QLatin1String("zero1"))
        return tr("Optimizer state sharded over the %1 GPUs").arg(gpus);
    if (parallel == QLatin1String("zero2"))
        return tr("Optimizer state and gradients sharded over the %1 GPUs").arg(gpus);
    if (parallel == QLatin1String("zero3"))
        return tr("Optimizer state, gradients and parameters sharded over the %1 GPUs").arg(gpus);
    return tr("Every GPU runs the whole network on its own samples");
}

QString ScenarioPanel::gpuCountLabel() const {
    return m_gpu_count->text();
}

void ScenarioPanel::onGpuSlider(int exponent) {
    const int total = 1 << exponent;
    int per_node = 1;
    while (per_node * 2 <= total && per_node * 2 <= m_gpus_per_node->maximum())
        per_node *= 2;
    {
        const QSignalBlocker a(m_nodes), b(m_gpus_per_node);
        m_gpus_per_node->setValue(per_node);
        m_nodes->setValue(total / per_node);
    }
    updateLabels();
    emitChanged();
}

void ScenarioPanel::onLayoutSpins() {
    {
        const QSignalBlocker block(m_gpu_slider);
        m_gpu_slider->setValue(floorLog2(m_nodes->value() * m_gpus_per_node->value()));
    }
    updateLabels();
    emitChanged();
}

void ScenarioPanel::onBatchSlider(int exponent) {
    {
        const QSignalBlocker block(m_batch);
        m_batch->setValue(1 << exponent);
    }
    updateAvailability();
    emitChanged();
}

void ScenarioPanel::onBatchSpin(int batch) {
    {
        const QSignalBlocker block(m_batch_slider);
        m_batch_slider->setValue(floorLog2(batch));
    }
    updateAvailability();
    emitChanged();
}

void ScenarioPanel::onSystemChanged() {
    {
        const QSignalBlocker a(m_nodes), b(m_gpus_per_node), c(m_gpu_slider), d(m_gpu);
        updateLimits();
        // A system that ships with one GPU model selects it; one can still pick another.
        try {
            const auto system = m_cache.system(m_system->currentData().toString());
            if (!system.default_gpu.empty() &&
                m_gpu->findData(QString::fromStdString(system.default_gpu)) >= 0)
                m_gpu->setCurrentIndex(m_gpu->findData(QString::fromStdString(system.default_gpu)));
        } catch (const std::exception&) {
        }
        m_gpu_slider->setValue(floorLog2(m_nodes->value() * m_gpus_per_node->value()));
    }
    updateLabels();
    emitChanged();
}

bool ScenarioPanel::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        const bool history = key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo) ||
                             (key->modifiers() == Qt::ControlModifier &&
                              (key->key() == Qt::Key_Z || key->key() == Qt::Key_Y)) ||
                             (key->modifiers() == (Qt::ControlModifier | Qt::ShiftModifier) &&
                              key->key() == Qt::Key_Z);
        if (history) {
            // Not the box's: the window's Undo or Redo takes the key. What was typed and not
            // yet taken is dropped, so the box shows the value that undo goes back from.
            if (auto* spin = qobject_cast<QSpinBox*>(watched))
                spin->setValue(spin->value());
            else if (auto* real = qobject_cast<QDoubleSpinBox*>(watched))
                real->setValue(real->value());
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ScenarioPanel::emitChanged() {
    emit settingsChanged(settings());
}

} // namespace iterscope::ui
