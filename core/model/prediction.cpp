#include "model/prediction.h"

namespace iterscope {

const char* boundName(Bound b) {
    switch (b) {
    case Bound::Compute:
        return "compute";
    case Bound::Memory:
        return "memory";
    case Bound::Overhead:
        return "overhead";
    }
    return "overhead";
}

const char* streamName(Stream s) {
    switch (s) {
    case Stream::Input:
        return "input";
    case Stream::Compute:
        return "compute";
    case Stream::Communication:
        return "communication";
    case Stream::Update:
        return "update";
    }
    return "compute";
}

} // namespace iterscope
