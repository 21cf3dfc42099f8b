#include "layers/layer_tree.h"

#include "layers/layer_names.h"

#include <QHash>
#include <QStringList>

namespace iterscope::ui {
namespace {

// "features.2.0" -> "features", "features.2", "features.2.0".
void addDottedPrefixes(const QString& segment, bool with_itself, std::vector<QString>& out) {
    qsizetype dot = segment.indexOf(QLatin1Char('.'));
    while (dot > 0) {
        out.push_back(segment.left(dot));
        dot = segment.indexOf(QLatin1Char('.'), dot + 1);
    }
    if (with_itself)
        out.push_back(segment);
}

// The tree as read from the names, every level kept: key -> node, children in order.
struct Draft {
    struct Node {
        QString label;
        int timing = -1;
        std::vector<int> children;
    };
    std::vector<Node> nodes{Node{}}; // 0: the root
};

// Copies `draft` node `d` under `parent` into `tree`, passing over single-child modules. A
// module chain that collapses keeps its outermost name ("features.1", not the "conv" that
// is all it holds).
void place(const Draft& draft, int d, int parent, LayerTree& tree) {
    const Draft::Node* node = &draft.nodes[static_cast<std::size_t>(d)];
    const QString outer = node->label;
    while (node->timing < 0 && node->children.size() == 1)
        node = &draft.nodes[static_cast<std::size_t>(node->children.front())];
    const int index = static_cast<int>(tree.nodes.size());
    LayerTree::Node out;
    out.parent = parent;
    out.timing = node->timing;
    if (node->timing < 0)
        out.label = outer;
    std::vector<int>& siblings =
        parent < 0 ? tree.top : tree.nodes[static_cast<std::size_t>(parent)].children;
    out.row = static_cast<int>(siblings.size());
    siblings.push_back(index);
    tree.nodes.push_back(out);
    if (out.timing >= 0)
        tree.node_of_timing[static_cast<std::size_t>(out.timing)] = index;
    for (const int child : node->children)
        place(draft, child, index, tree);
}

} // namespace

std::vector<QString> moduleChain(const QString& name) {
    const QStringList segments = compactLayerName(name).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    std::vector<QString> chain;
    if (segments.size() > 1) {
        // A module path: every segment but the last (the operation) is a module, and so are
        // the dotted prefixes within it.
        for (qsizetype i = 0; i + 1 < segments.size(); ++i)
            addDottedPrefixes(segments[i], true, chain);
    } else if (!segments.isEmpty()) {
        addDottedPrefixes(segments.front(), false, chain);
    }
    return chain;
}

bool LayerTree::hasModules() const {
    for (const Node& n : nodes)
        if (n.timing < 0)
            return true;
    return false;
}

LayerTree layerTree(const std::vector<QString>& names) {
    Draft draft;
    QHash<QString, int> by_path; // "features.2/conv" -> draft node
    for (std::size_t i = 0; i < names.size(); ++i) {
        int parent = 0;
        QString path;
        for (const QString& module : moduleChain(names[i])) {
            path += QLatin1Char('/') + module;
            auto it = by_path.find(path);
            if (it == by_path.end()) {
                const int made = static_cast<int>(draft.nodes.size());
                draft.nodes.push_back({module, -1, {}});
                draft.nodes[static_cast<std::size_t>(parent)].children.push_back(made);
                it = by_path.insert(path, made);
            }
            parent = *it;
        }
        const int leaf = static_cast<int>(draft.nodes.size());
        draft.nodes.push_back({QString(), static_cast<int>(i), {}});
        draft.nodes[static_cast<std::size_t>(parent)].children.push_back(leaf);
    }
    LayerTree tree;
    tree.node_of_timing.assign(names.size(), -1);
    for (const int child : draft.nodes.front().children)
        place(draft, child, -1, tree);
    return tree;
}

} // namespace iterscope::ui
