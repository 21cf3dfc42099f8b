#include "timeline/timeline_rows.h"

#include <QCoreApplication>

#include <algorithm>
#include <map>
#include <tuple>

namespace iterscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("iterscope::ui::TimelineView", text);
}

// The row slot of a kind: with groups, forward, backward, update and waits share one.
BarKind slotOf(BarKind kind, bool grouped) {
    if (kind == BarKind::Wait)
        return grouped ? BarKind::Forward : BarKind::Update;
    if (grouped && (kind == BarKind::Backward || kind == BarKind::Update))
        return BarKind::Forward;
    return kind;
}

} // namespace

BarKind barKind(const TimelineEvent& e) {
    switch (e.kind) {
    case EventKind::StragglerWait:
    case EventKind::InputWait:
    case EventKind::ServerWait:
        return BarKind::Wait;
    default:
        break;
    }
    switch (e.stream) {
    case Stream::Input:
        return BarKind::Input;
    case Stream::Compute:
        return e.kind == EventKind::Backward || e.kind == EventKind::StageBackward
                   ? BarKind::Backward
                   : BarKind::Forward;
    case Stream::Communication:
        return BarKind::Communication;
    case Stream::Update:
        return BarKind::Update;
    }
    return BarKind::Forward;
}

QColor barColor(BarKind kind) {
    switch (kind) {
    case BarKind::Input:
        return QColor(0x26, 0xa6, 0x9a);
    case BarKind::Forward:
        return QColor(0x4c, 0x8b, 0xf5);
    case BarKind::Backward:
        return QColor(0xf0, 0x8c, 0x2e);
    case BarKind::Communication:
        return QColor(0xd9, 0x53, 0x4f);
    case BarKind::Update:
        return QColor(0x9c, 0x6a, 0xde);
    case BarKind::Wait:
        return QColor(0x8e, 0x8e, 0x93); // idle, not work: grey
    }
    return QColor(0x4c, 0x8b, 0xf5);
}

QString barKindLabel(BarKind kind, bool input_is_prefetch) {
    switch (kind) {
    case BarKind::Input:
        return input_is_prefetch ? tr("Input prefetch") : tr("Input copy");
    case BarKind::Forward:
        return tr("Forward");
    case BarKind::Backward:
        return tr("Backward");
    case BarKind::Communication:
        return tr("Communication");
    case BarKind::Update:
        return tr("Update");
    case BarKind::Wait:
        return tr("Wait");
    }
    return {};
}

TimelineRows timelineRows(const Prediction& prediction, bool input_is_prefetch, bool compact) {
    TimelineRows out;
    const int groups = std::max<int>(1, static_cast<int>(prediction.groups.size()));
    out.grouped = groups > 1 || compact;
    const bool grouped = out.grouped;
    const auto groupOf = [groups](const TimelineEvent& e) {
        return std::clamp(e.group, 0, groups - 1);
    };
    // A grouped block's communication lanes share one row.
    const auto keyOf = [&](const TimelineEvent& e) {
        const BarKind slot = slotOf(barKind(e), grouped);
        const int lane = grouped && slot == BarKind::Communication ? 0 : std::max(0, e.lane);
        return std::tuple{groupOf(e), static_cast<int>(slot), lane};
    };
    struct Content {
        int row = 0;
        int lanes = 1;
        unsigned kinds = 0;
    };
    std::map<std::tuple<int, int, int>, Content> index;
    for (const auto& e : prediction.timeline) {
        Content& c = index[keyOf(e)];
        c.kinds |= 1U << static_cast<int>(barKind(e));
        if (grouped && barKind(e) == BarKind::Communication)
            c.lanes = std::max(c.lanes, std::max(0, e.lane) + 1);
        out.kinds |= 1U << static_cast<int>(barKind(e));
    }
    int row = 0;
    for (auto& [key, content] : index) {
        const auto [group, slot, lane] = key;
        content.row = row++;
        const auto kind = static_cast<BarKind>(slot);
        const auto holds = [&content](BarKind k) {
            return (content.kinds >> static_cast<int>(k)) & 1U;
        };
        QString label;
        if (grouped && kind == BarKind::Forward)
            label = tr("Compute");
        else if (kind == BarKind::Update && holds(BarKind::Wait))
            label = holds(BarKind::Update) ? tr("Update, wait") : tr("Wait");
        else
            label = barKindLabel(kind, input_is_prefetch);
        if (lane > 0)
            label += QStringLiteral(" %1").arg(lane + 1);
        out.rows.push_back({label, group, content.lanes});
    }
    out.event_row.reserve(prediction.timeline.size());
    out.event_lane.reserve(prediction.timeline.size());
    for (const auto& e : prediction.timeline) {
        const Content& c = index[keyOf(e)];
        out.event_row.push_back(c.row);
        out.event_lane.push_back(c.lanes > 1 ? std::clamp(e.lane, 0, c.lanes - 1) : 0);
    }

    // One block per group that has rows. "stage 1 (conv1 to res3d)" reads as its name, its
    // GPU count, then its layers, as far as the block's height allows.
    for (int g = 0; g < groups; ++g) {
        TimelineRows::Block block;
        block.first_row = -1;
        for (std::size_t r = 0; r < out.rows.size(); ++r)
            if (out.rows[r].group == g) {
                if (block.first_row < 0)
                    block.first_row = static_cast<int>(r);
                ++block.rows;
            }
        if (block.rows == 0)
            continue;
        if (groups > 1) {
            const auto& info = prediction.groups[static_cast<std::size_t>(g)];
            const QString label = QString::fromStdString(info.label);
            const qsizetype paren = label.indexOf(QStringLiteral(" ("));
            block.lines << (paren > 0 ? label.left(paren) : label);
            if (info.gpus > 1)
                block.lines << tr("%1 GPUs").arg(info.gpus);
            if (paren > 0)
                block.lines << label.mid(paren + 1);
        }
        out.blocks.push_back(block);
    }
    return out;
}

void appendMeasuredRows(TimelineRows& rows, const std::vector<TimelineEvent>& measured,
                        const QStringList& lines) {
    if (measured.empty())
        return;
    Prediction step;
    step.timeline = measured;
    const TimelineRows own = timelineRows(step, false, true);
    for (auto& block : rows.blocks)
        if (block.lines.isEmpty())
            block.lines = QStringList{tr("Predicted")};
    int group = 0;
    for (const auto& row : rows.rows)
        group = std::max(group, row.group + 1);
    const int offset = static_cast<int>(rows.rows.size());
    for (auto row : own.rows) {
        row.group = group;
        rows.rows.push_back(row);
    }
    for (const int r : own.event_row)
        rows.event_row.push_back(r + offset);
    rows.event_lane.insert(rows.event_lane.end(), own.event_lane.begin(), own.event_lane.end());
    TimelineRows::Block block;
    block.first_row = offset;
    block.rows = static_cast<int>(own.rows.size());
    block.lines = lines;
    rows.blocks.push_back(block);
    rows.kinds |= own.kinds;
    rows.grouped = true;
}

} // namespace iterscope::ui
