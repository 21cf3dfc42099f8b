// Finds and loads the chart renderer module (chart_renderer.h) for the commands that draw:
// export-chart and report. Loaded only when one of them runs, so no other command pays for
// Qt.
#pragma once

#include <string>

namespace iterscope::cli {

// The module's entry point `symbol`, next to this program or where the install puts the
// module. Throws InputError naming `command` and why when there is none.
void* rendererEntry(const char* symbol, const std::string& command);

} // namespace iterscope::cli
