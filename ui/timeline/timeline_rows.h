// Which row of the timeline each event goes to, and what the rows are called. Rows follow
// an iteration top to bottom: input, forward, backward, exchange (a row per overlapping
// lane), update; the waits that end a step (for the slowest GPU, the host's decoding, the
// parameter servers) share the update's row in a colour and legend entry of their own.
//
// Where GPUs differ (a pipeline's stages; Prediction::groups) each group gets a block of
// rows, and to keep many stages readable without scrolling, a block has at most three:
// input, compute (forward, backward, update and waits, so a stage's bubble is a gap in
// it) and communication (its lanes drawn as thinner bars within the one row).
#pragma once

#include "model/prediction.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <vector>

namespace iterscope::ui {

enum class BarKind { Input, Forward, Backward, Communication, Update, Wait };
inline constexpr int kBarKinds = 6;

BarKind barKind(const TimelineEvent& event);
// Mid-lightness hues, readable on light and dark palettes alike.
QColor barColor(BarKind kind);
// The legend's word; an overlapped input copy brings the next batch ("Input prefetch").
QString barKindLabel(BarKind kind, bool input_is_prefetch);

struct TimelineRows {
    struct Row {
        QString label;
        int group = 0;
        int lanes = 1; // thinner bars side by side in height (grouped communication)
    };
    struct Block {         // a GPU group's rows
        QStringList lines; // "stage 1", "4 GPUs", "(conv1 to res3d)": as many as fit
        int first_row = 0;
        int rows = 0;
    };
    std::vector<Row> rows;
    std::vector<Block> blocks;  // one per group that has rows
    std::vector<int> event_row; // parallel to the prediction's timeline
    std::vector<int> event_lane;
    unsigned kinds = 0; // bit (1 << BarKind) for each kind drawn: the legend's entries
    bool grouped = false;

    bool has(BarKind kind) const { return (kinds >> static_cast<int>(kind)) & 1U; }
};

// compact: the grouped layout (input, compute, communication) even for one group, where
// a measured block joins the predicted one and both must fit the same height.
TimelineRows timelineRows(const Prediction& prediction, bool input_is_prefetch,
                          bool compact = false);

// Appends a measured step's rows (a profiler trace's; measured_run.h) as a block of its own
// under the predicted ones, in the compact layout, named by `lines`; predicted blocks
// without a name are named "Predicted", so the two read apart. The measured events
// follow the predicted ones in event_row and event_lane.
void appendMeasuredRows(TimelineRows& rows, const std::vector<TimelineEvent>& measured,
                        const QStringList& lines);

} // namespace iterscope::ui
