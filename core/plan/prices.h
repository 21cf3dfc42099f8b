// A user's prices file (docs/planning.md "A prices file of your own"): GPU prices per
// GPU-hour, board power and systems' host power that replace the shipped profiles' figures,
// for a contract price, an owned cluster's electricity-only cost or a GPU no cloud lists.
#pragma once

#include "hardware/hardware.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

struct PriceOverrides {
    std::string file;   // where they came from, for price_source
    std::string source; // the file's own "source", optional
    std::string date;   // the file's own "date", optional
    struct Gpu {
        std::optional<double> usd_per_gpu_hour;
        std::optional<double> board_watts;
    };
    struct System {
        std::optional<double> host_watts_per_node;
    };
    std::map<std::string, Gpu> gpus;       // by GPU profile id
    std::map<std::string, System> systems; // by system profile id
};

// Strict, like the profiles: a malformed or unknown field is an InputError naming the file
// and the field.
PriceOverrides loadPriceOverrides(const std::string& path);
PriceOverrides parsePriceOverrides(const std::string& text, const std::string& file);

// Replaces the figures of the profiles the file names. An id that names neither one of
// these profiles nor a shipped one is an InputError (a typo must not silently leave the
// shipped price in place).
void applyPriceOverrides(const PriceOverrides& prices, std::vector<GpuProfile>& gpus,
                         std::vector<SystemProfile>& systems);

} // namespace iterscope
