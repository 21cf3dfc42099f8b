#include "cli/renderer_module.h"

#include "chart_renderer/chart_renderer.h"
#include "util/error.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>
#include <vector>

#ifndef ITERSCOPE_CHART_RENDERER_RELATIVE_DIR
#define ITERSCOPE_CHART_RENDERER_RELATIVE_DIR "."
#endif

namespace iterscope::cli {

// Next to this program in a build tree; where the install puts it relative to the bin
// directory otherwise, so an installed tree can be moved as a whole.
void* rendererEntry(const char* symbol, const std::string& command) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    const fs::path dir = ec ? fs::path(".") : self.parent_path();
    const std::vector<fs::path> candidates = {
        dir / kChartRendererFile, dir / ITERSCOPE_CHART_RENDERER_RELATIVE_DIR / kChartRendererFile};
    std::string reason;
    for (const fs::path& path : candidates) {
        if (!fs::exists(path, ec)) {
            reason +=
                (reason.empty() ? "not found at " : " or ") + path.lexically_normal().string();
            continue;
        }
        // Never closed: Qt keeps state alive until the process exits.
        void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!module) {
            const char* why = dlerror();
            reason = why ? why : path.string() + " cannot be loaded";
            break;
        }
        if (void* entry = dlsym(module, symbol))
            return entry;
        reason = path.string() + " has no " + symbol;
        break;
    }
    throw InputError(command +
                     ": no usable chart renderer, which is built with the GUI: " + reason);
}

} // namespace iterscope::cli
