#include "layers/layer_names.h"

#include <algorithm>

namespace iterscope::ui {

QString compactLayerName(const QString& name) {
    if (!name.contains(QLatin1Char('/')))
        return name;
    const QStringList segments = name.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QStringList kept;
    for (qsizetype i = 0; i < segments.size(); ++i) {
        const bool repeated =
            i + 1 < segments.size() && segments[i + 1].startsWith(segments[i] + QLatin1Char('.'));
        if (!repeated)
            kept.append(segments[i]);
    }
    return kept.isEmpty() ? name : kept.join(QLatin1Char('/'));
}

QStringList displayLayerNames(const std::vector<std::string>& names) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(names.size()));
    for (const auto& n : names)
        out.append(compactLayerName(QString::fromStdString(n)));
    if (out.size() < 2)
        return out;
    // The shared leading segments: a prefix of the first name that ends in '/' and that
    // every name starts with and goes beyond.
    const QString& first = out.front();
    const auto shorter = [&first](qsizetype p) -> qsizetype {
        return p <= 1 ? 0 : first.lastIndexOf(QLatin1Char('/'), p - 2) + 1;
    };
    qsizetype prefix = first.lastIndexOf(QLatin1Char('/')) + 1;
    for (const QString& n : out) {
        while (prefix > 0 && !(n.size() > prefix &&
                               QStringView(n).left(prefix) == QStringView(first).left(prefix)))
            prefix = shorter(prefix);
        if (prefix <= 0)
            return out;
    }
    for (QString& n : out)
        n.remove(0, prefix);
    return out;
}

QStringList distinctLayerLabels(const QStringList& full_names, int max_chars) {
    std::vector<QStringList> segments;
    for (const QString& name : full_names)
        segments.push_back(compactLayerName(name).split(QLatin1Char('/'), Qt::SkipEmptyParts));
    const auto tail = [&](std::size_t i, qsizetype k) {
        const QStringList& s = segments[i];
        return s.mid(std::max<qsizetype>(0, s.size() - k)).join(QLatin1Char('/'));
    };
    // Each name's tail: the fewest last segments that no other name ends in alike.
    // Never fewer than two where a name has them: the op alone ("BatchNormalization") or a
    // module alone ("block.0.2") does not say which layer a bar is.
    std::vector<qsizetype> depth(segments.size(), 1);
    for (std::size_t i = 0; i < segments.size(); ++i)
        for (qsizetype k = std::min<qsizetype>(2, segments[i].size()); k <= segments[i].size();
             ++k) {
            depth[i] = k;
            bool alone = true;
            for (std::size_t j = 0; j < segments.size() && alone; ++j)
                alone = j == i || tail(i, k) != tail(j, k);
            if (alone)
                break;
        }
    QStringList out;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        QString label = tail(i, depth[i]);
        if (label.isEmpty())
            label = full_names[static_cast<qsizetype>(i)];
        const QStringList& s = segments[i];
        if (label.size() > max_chars && depth[i] > 2) {
            // The segment that tells it apart and the operation, the middle left out.
            const QString ends = s[s.size() - depth[i]] + QStringLiteral("/…/") + s.back();
            if (ends.size() <= max_chars)
                label = ends;
        }
        label = elideMiddle(label, max_chars);
        // Still alike after shortening: numbered, never merged into one bar.
        QString unique = label;
        for (int n = 2; out.contains(unique); ++n)
            unique = QStringLiteral("%1 (%2)").arg(label).arg(n);
        out.append(unique);
    }
    return out;
}

QString elideMiddle(const QString& text, int max_chars) {
    if (max_chars < 3 || text.size() <= max_chars)
        return text;
    const int keep = max_chars - 1; // one for the ellipsis
    // Two thirds for the start, which tells the layers apart (the module path); a third
    // for the end, which says what the layer is.
    const int tail = keep / 3;
    const int head = keep - tail;
    return text.left(head) + QChar(0x2026) + text.right(tail);
}

} // namespace iterscope::ui
