#include "what_helps/advisor_view.h"

#include "util/error.h"
#include "what_helps/suggestion_settings.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <limits>

namespace iterscope::ui {

namespace {

enum Column { SpeedupColumn, ChangeColumn, WhyColumn };
constexpr int kSpeedupRole = Qt::UserRole + 1; // speed-up, low, high, scale
constexpr int kRowRole = Qt::UserRole + 2;     // index into the suggestions, -1: a combination
constexpr int kNotSuggestedRow = std::numeric_limits<int>::min(); // applies nothing

// Paints a suggestion's speed-up as a bar from 1x with its band as a whisker, so that
// the list reads as a chart; the figure is written over it.
class SpeedupDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        QStyleOptionViewItem o = option;
        initStyleOption(&o, index);
        const QString text = o.text;
        o.text.clear();
        o.widget->style()->drawControl(QStyle::CE_ItemViewItem, &o, painter, o.widget);
        const QVariantList v = index.data(kSpeedupRole).toList();
        if (v.size() == 4) {
            const double speedup = v[0].toDouble(), low = v[1].toDouble(), high = v[2].toDouble();
            const double scale = std::max(1.0001, v[3].toDouble());
            const QRectF r = QRectF(o.rect).adjusted(4, 2, -4, -2);
            auto x = [&](double ratio) {
                return r.left() + r.width() * std::clamp((ratio - 1) / (scale - 1), 0.0, 1.0);
            };
            painter->save();
            painter->setRenderHint(QPainter::Antialiasing, false);
            QColor bar = o.palette.color(QPalette::Highlight);
            bar.setAlpha(110);
            painter->fillRect(QRectF(r.left(), r.top(), x(speedup) - r.left(), r.height()), bar);
            QPen whisker(o.palette.color(QPalette::Text));
            whisker.setWidthF(1.5);
            painter->setPen(whisker);
            // Along the cell's foot, under the figure, so the whisker never strikes it out.
            const double foot = r.bottom();
            painter->drawLine(QPointF(x(low), foot), QPointF(x(high), foot));
            painter->drawLine(QPointF(x(low), foot - 4), QPointF(x(low), foot));
            painter->drawLine(QPointF(x(high), foot - 4), QPointF(x(high), foot));
            painter->restore();
        }
        painter->setPen(o.palette.color(
            (o.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(QRectF(o.rect).adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignRight,
                          text);
    }
};

QString ratio(double v) {
    return QString::number(v, 'f', 2) + QStringLiteral("×");
}

} // namespace

AdvisorView::AdvisorView(QWidget* parent)
    : QWidget(parent)
    , m_watcher(new QFutureWatcher<std::shared_ptr<const Advice>>(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_diagnosis = new QLabel;
    m_diagnosis->setObjectName(QStringLiteral("advisorDiagnosis"));
    m_diagnosis->setWordWrap(true);
    m_diagnosis->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_diagnosis);

    m_list = new QTreeWidget;
    m_list->setObjectName(QStringLiteral("advisorList"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels({tr("Speed-up (band)"), tr("Change"), tr("Why")});
    m_list->setItemDelegateForColumn(SpeedupColumn, new SpeedupDelegate(m_list));
    m_list->header()->setStretchLastSection(true);
    m_list->setColumnWidth(SpeedupColumn, 170);
    m_list->setColumnWidth(ChangeColumn, 240);
    m_list->setToolTip(tr("Double-click applies a suggestion (Edit › Undo takes it back)"));
    layout->addWidget(m_list, 1);

    auto* buttons = new QHBoxLayout;
    m_hardware = new QCheckBox(tr("Hardware too"));
    m_hardware->setToolTip(tr("Also try more GPUs or nodes, a faster network and another GPU"));
    m_apply = new QPushButton(tr("Apply"));
    m_apply->setEnabled(false);
    buttons->addWidget(m_hardware);
    buttons->addStretch(1);
    buttons->addWidget(m_apply);
    layout->addLayout(buttons);

    m_comparisons = new QLabel;
    m_comparisons->setObjectName(QStringLiteral("pinComparisons"));
    m_comparisons->setWordWrap(true);
    m_comparisons->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_comparisons);

    connect(m_hardware, &QCheckBox::toggled, this, [this] { request(); });
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, [this] { updateApplyButton(); });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item) { applySuggestion(m_list->indexOfTopLevelItem(item)); });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (auto* item = m_list->currentItem())
            applySuggestion(m_list->indexOfTopLevelItem(item));
    });
}

AdvisorView::~AdvisorView() {
    // The worker touches nothing of the view; its result is dropped.
    m_watcher->disconnect(this);
}

void AdvisorView::setResult(ResultPtr result) {
    m_result = std::move(result);
    updateComparisons();
    request();
}

void AdvisorView::setPins(const QList<PinnedCurves>& pins) {
    m_pins = pins;
    updateComparisons();
}

void AdvisorView::request() {
    if (!m_result)
        return;
    ++m_latest;
    // A hidden view (another tab) computes nothing until it is shown; one computation at a
    // time, the newest scenario next: a slider drag never queues a pile of stale advice.
    if (!isVisible() || m_running)
        return;
    m_running = true;
    const quint64 id = m_latest;
    AdviceOptions options;
    options.hardware = m_hardware->isChecked();
    const Scenario scenario = m_result->scenario;
    connect(m_watcher, &QFutureWatcherBase::finished, this, [this, id] {
        disconnect(m_watcher, &QFutureWatcherBase::finished, this, nullptr);
        m_running = false;
        show(id, m_watcher->result());
        if (m_latest != id)
            request();
    });
    m_watcher->setFuture(QtConcurrent::run([scenario, options]() -> std::shared_ptr<const Advice> {
        try {
            return std::make_shared<const Advice>(advise(scenario, options));
        } catch (const std::exception& e) {
            auto failed = std::make_shared<Advice>();
            failed->diagnosis = std::string("no advice: ") + e.what();
            return failed;
        }
    }));
}

void AdvisorView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_result && m_shown != m_latest && !m_running) {
        --m_latest; // request() counts the same scenario again
        request();
    }
}

void AdvisorView::show(quint64 id, std::shared_ptr<const Advice> advice) {
    // Latest request wins: an older scenario's advice never replaces a newer one's.
    if (!advice)
        return;
    m_shown = id;
    m_advice = std::move(advice);
    const Advice& a = *m_advice;
    m_diagnosis->setText(QString::fromStdString(a.diagnosis));
    m_list->clear();
    double scale = 1.05;
    for (const Suggestion& s : a.suggestions)
        scale = std::max(scale, s.band.high);
    for (const Suggestion& s : a.combinations)
        scale = std::max(scale, s.band.high);
    auto add = [&](const Suggestion& s, int row, const QString& prefix) {
        auto* item = new QTreeWidgetItem(m_list);
        item->setText(SpeedupColumn, ratio(s.speedup) + QStringLiteral(" (") +
                                         QString::number(s.band.low, 'f', 2) + QStringLiteral("–") +
                                         QString::number(s.band.high, 'f', 2) + QLatin1Char(')'));
        item->setData(SpeedupColumn, kSpeedupRole,
                      QVariantList{s.speedup, s.band.low, s.band.high, scale});
        item->setData(SpeedupColumn, kRowRole, row);
        item->setText(ChangeColumn, prefix + QString::fromStdString(s.change));
        item->setText(WhyColumn, QString::fromStdString(s.why));
        QString tip = QString::fromStdString(s.change) + QStringLiteral("\n") +
                      QString::fromStdString(s.why) + QStringLiteral("\nband: ") +
                      QString::fromStdString(s.band.basis);
        if (s.cost)
            tip += QStringLiteral("\ncost: ") + QString::fromStdString(*s.cost);
        QString flags;
        for (const std::string& f : s.flags)
            flags += QString::fromStdString(f) + QLatin1Char(' ');
        tip += QStringLiteral("\nflags: ") + flags.trimmed();
        for (int c = 0; c < 3; ++c)
            item->setToolTip(c, tip);
    };
    for (std::size_t i = 0; i < a.suggestions.size(); ++i)
        add(a.suggestions[i], static_cast<int>(i), QString());
    for (std::size_t i = 0; i < a.combinations.size(); ++i)
        add(a.combinations[i], -1 - static_cast<int>(i), tr("together: "));
    // What was tried and is not suggested, apart and greyed under its own heading, one row
    // each with its reason where the why goes: a run-on paragraph of them was cut off.
    if (!a.not_suggested.empty()) {
        const QColor grey = m_list->palette().color(QPalette::Disabled, QPalette::Text);
        auto* heading = new QTreeWidgetItem(m_list);
        heading->setText(ChangeColumn, tr("Not suggested (%1)").arg(a.not_suggested.size()));
        QFont bold = heading->font(ChangeColumn);
        bold.setBold(true);
        heading->setFont(ChangeColumn, bold);
        heading->setFlags(Qt::ItemIsEnabled);
        heading->setData(SpeedupColumn, kRowRole, kNotSuggestedRow);
        for (const Suggestion& s : a.not_suggested) {
            auto* item = new QTreeWidgetItem(m_list);
            if (s.speedup > 0)
                item->setText(SpeedupColumn, ratio(s.speedup));
            item->setText(ChangeColumn, QString::fromStdString(s.change));
            item->setText(WhyColumn, QString::fromStdString(s.reason));
            item->setFlags(Qt::ItemIsEnabled);
            item->setData(SpeedupColumn, kRowRole, kNotSuggestedRow);
            for (int c = 0; c < 3; ++c) {
                item->setForeground(c, grey);
                item->setToolTip(c, QString::fromStdString(s.change + "\n" + s.reason));
            }
        }
    }
    updateApplyButton();
    emit adviceShown();
}

static const Suggestion* suggestionOfRow(const Advice& a, int data_row) {
    if (data_row >= 0 && data_row < static_cast<int>(a.suggestions.size()))
        return &a.suggestions[static_cast<std::size_t>(data_row)];
    const int combination = -1 - data_row;
    if (combination >= 0 && combination < static_cast<int>(a.combinations.size()))
        return &a.combinations[static_cast<std::size_t>(combination)];
    return nullptr;
}

bool AdvisorView::applySuggestion(int row) {
    if (!m_advice || !m_result || row < 0 || row >= m_list->topLevelItemCount())
        return false;
    const Suggestion* s = suggestionOfRow(
        *m_advice, m_list->topLevelItem(row)->data(SpeedupColumn, kRowRole).toInt());
    if (!s)
        return false;
    const auto settings = settingsWithFlags(m_result->settings, s->flags);
    if (!settings)
        return false;
    emit applyRequested(*settings);
    return true;
}

void AdvisorView::updateApplyButton() {
    QTreeWidgetItem* item = m_list->currentItem();
    bool ok = false;
    QString unsupported;
    if (item && m_advice && m_result)
        if (const Suggestion* s =
                suggestionOfRow(*m_advice, item->data(SpeedupColumn, kRowRole).toInt()))
            ok = settingsWithFlags(m_result->settings, s->flags, &unsupported).has_value();
    m_apply->setEnabled(ok);
    m_apply->setToolTip(ok || unsupported.isEmpty()
                            ? tr("Apply the selected suggestion (one undo step)")
                            : tr("%1 edits a profile: use the command line").arg(unsupported));
}

void AdvisorView::updateComparisons() {
    m_comparison_lines.clear();
    if (m_result)
        for (int i = 0; i < m_pins.size(); ++i) {
            const PinnedCurves& pin = m_pins[i];
            const QString name = tr("Pin %1").arg(i + 1);
            // The pin's own throughput: its GPU-count curve at its own GPU count, else its
            // batch curve (at its GPU count) at its own batch.
            double pin_ips = 0;
            for (const CurvePoint& p : pin.curves.by_gpus)
                if (static_cast<int>(p.x) == pin.settings.totalGpus())
                    pin_ips = p.images_per_second;
            for (const CurvePoint& p : pin.curves.by_batch)
                if (pin_ips <= 0 && static_cast<int>(p.x) == pin.settings.batch)
                    pin_ips = p.images_per_second;
            if (pin_ips <= 0) {
                m_comparison_lines << tr("%1: its own point is not on its curves").arg(name);
                continue;
            }
            try {
                const Scenario other =
                    scenarioOfPin(m_result->scenario, m_result->settings, pin.settings);
                const ScenarioComparison c = compareScenarios(
                    m_result->scenario, m_result->prediction.images_per_second, other, pin_ips);
                m_comparison_lines << QString::fromStdString(c.text(name.toStdString()));
            } catch (const InputError& e) {
                m_comparison_lines << tr("%1: cannot compare (%2)").arg(name, e.what());
            }
        }
    m_comparisons->setText(m_comparison_lines.isEmpty()
                               ? QString()
                               : tr("Current scenario against the pins:\n") +
                                     m_comparison_lines.join(QLatin1Char('\n')));
}

bool AdvisorView::waitForAdvice(int timeout_ms) {
    QDeadlineTimer deadline(timeout_ms);
    while ((m_shown != m_latest || m_running) && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return m_shown == m_latest;
}

} // namespace iterscope::ui
