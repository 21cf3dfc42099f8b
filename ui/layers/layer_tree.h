// The module hierarchy of a network's layers, as torchinfo shows it, read from their
// names: ONNX files exported by PyTorch name a node by its module path
// ("/features/features.2/conv/conv.0/conv.0.0/Conv"), torchvision-style names by dots
// ("layer1.0.conv1"). A module holds the layers (and modules) under it, in network order;
// a module with a single child is not a level of its own (its child takes its place, under
// the outer module's name), so that no row stands for one thing twice. Names without either
// give a flat list.
#pragma once

#include <QString>

#include <vector>

namespace iterscope::ui {

struct LayerTree {
    struct Node {
        int parent = -1; // -1: at the top
        int row = 0;     // among its parent's children (or the top)
        std::vector<int> children;
        int timing = -1; // a layer: its index into Prediction::layers; a module: -1
        QString label;   // a module's name ("layer1.0", "features.2"); empty for a layer
    };
    std::vector<Node> nodes; // parents before their children
    std::vector<int> top;    // the nodes at the top, in network order
    std::vector<int> node_of_timing;

    bool hasModules() const;
};

// `names`: the full name of each timing row's layer, in network order.
LayerTree layerTree(const std::vector<QString>& names);

// The modules a layer of this name sits in, outermost first ("layer1", "layer1.0" for
// "layer1.0.conv1"), before single-child modules are taken out.
std::vector<QString> moduleChain(const QString& name);

} // namespace iterscope::ui
