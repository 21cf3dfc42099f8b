#include "profile_editor/profile_fields.h"

#include "hardware/architecture.h"

#include <QCoreApplication>

namespace iterscope::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("ProfileEditor", text);
}

QStringList architectures() {
    QStringList names;
    for (const std::string& name : knownArchitectures())
        names.append(QString::fromStdString(name));
    return names;
}

using T = ProfileField::Type;

std::vector<ProfileField> identity(ProfileKind kind) {
    const QString what = kind == ProfileKind::Gpu ? tr("GPU") : tr("system");
    return {
        {"id",
         tr("Id"),
         {},
         tr("lower-case letters, digits, '.', '-', '_'; the name of its file, and what "
            "--%1 takes")
             .arg(kind == ProfileKind::Gpu ? "gpu" : "system"),
         T::Text,
         tr("Identity")},
        {"name", tr("Name"), {}, tr("shown in the %1 box").arg(what), T::WideText, tr("Identity")},
        {"source",
         tr("Source"),
         {},
         tr("where the figures come from (a spec sheet, a page)"),
         T::LongText,
         tr("Identity")},
        {"notes",
         tr("Notes"),
         {},
         tr("derivations, and values not confirmed"),
         T::LongText,
         tr("Identity")},
    };
}

std::vector<ProfileField> gpuFields() {
    std::vector<ProfileField> f = identity(ProfileKind::Gpu);
    const QString arch = tr("Architecture");
    f.insert(f.begin() + 2,
             {{"architecture",
               arch,
               {},
               tr("decides the GEMM ceilings, the DRAM share a kernel reaches and the kernels "
                  "older software has"),
               T::Choice,
               tr("Identity"),
               architectures()},
              {"like",
               tr("Like"),
               {},
               tr("for an architecture not listed: the known one it is most like (every "
                  "prediction then warns)"),
               T::Choice,
               tr("Identity"),
               QStringList{QString()} + architectures()},
              {"compute_capability",
               tr("Compute capability"),
               {},
               tr("CUDA compute capability (8.6, 9.0); empty: the architecture's"),
               T::Number,
               tr("Identity")}});
    const QString compute = tr("Compute");
    const QString memory = tr("Memory");
    const QString links = tr("Links, power and price");
    const std::vector<ProfileField> rest = {
        {"sm_count", tr("SMs"), {}, tr("streaming multiprocessors"), T::Number, compute},
        {"fp32_lanes_per_sm",
         tr("FP32 lanes per SM"),
         {},
         tr("FP32 units (\"CUDA cores\") per SM"),
         T::Number,
         compute},
        {"boost_clock_mhz", tr("Boost clock"), tr("MHz"),
         tr("the clock the vendor's peak figures use"), T::Number, compute},
        {"sustained_clock_mhz", tr("Sustained clock"), tr("MHz"),
         tr("the clock held under a power limit (laptops, capped servers); empty: boost holds"),
         T::Number, compute},
        {"fp32_tflops", tr("FP32 peak"), tr("TFLOP/s"),
         tr("FMA = 2 FLOPs; within 10% of 2 × lanes × SMs × clock"), T::Number, compute},
        {"tf32_tflops", tr("TF32 tensor peak"), tr("TFLOP/s"), tr("dense; 0: no TF32"), T::Number,
         compute},
        {"fp16_tensor_tflops", tr("FP16 tensor peak"), tr("TFLOP/s"),
         tr("dense, FP32 accumulate (mixed precision); 0: no tensor cores"), T::Number, compute},
        {"fp16_tflops", tr("FP16 vector peak"), tr("TFLOP/s"),
         tr("FP16 on the vector lanes, not the tensor cores; 0: no fast FP16"), T::Number, compute},
        {"memory_gib", tr("Memory"), tr("GiB"), tr("device memory (a \"16 GB\" GPU has 16 GiB)"),
         T::Number, memory},
        {"memory_bandwidth_gbps", tr("Memory bandwidth"), tr("GB/s"),
         tr("device memory bandwidth, 10⁹ bytes per second"), T::Number, memory},
        {"l2_mib", tr("L2 cache"), tr("MiB"), tr("last-level cache on the GPU"), T::Number, memory},
        {"pcie_gen", tr("PCIe generation"), {}, tr("of the host link (3, 4, 5)"), T::Number, links},
        {"pcie_lanes", tr("PCIe lanes"), {}, tr("of the host link (16)"), T::Number, links},
        {"cpu_link",
         tr("Link to the CPU"),
         {},
         tr("pcie, or nvlink-c2c on a superchip (GH200, GB200)"),
         T::Choice,
         links,
         {"pcie", "nvlink-c2c"}},
        {"cpu_link_gbps", tr("NVLink-C2C rate"), tr("GB/s"),
         tr("nvlink-c2c only: per GPU per direction"), T::Number, links},
        {"nvlink_links",
         tr("NVLink links"),
         {},
         tr("0: none; a PCIe card: what its bridge carries"),
         T::Number,
         links},
        {"nvlink_gbps_per_link", tr("NVLink per link"), tr("GB/s"),
         tr("per direction; above 0 exactly when there are links"), T::Number, links},
        {"form_factor",
         tr("Form factor"),
         {},
         tr("pcie: a card in a slot; sxm: a module on a vendor's baseboard"),
         T::Choice,
         links,
         {"pcie", "sxm"}},
        {"tdp_watts", tr("Board power"), tr("W"), tr("for the plan's energy"), T::Number, links},
        {"usd_per_gpu_hour", tr("Price"), tr("USD per GPU-hour"),
         tr("a public on-demand cloud price; empty: none"), T::Number, links},
        {"price_source",
         tr("Price source"),
         {},
         tr("with a price: where it was read"),
         T::Text,
         links},
        {"price_date",
         tr("Price date"),
         {},
         tr("with a price: the day it was read, YYYY-MM-DD"),
         T::Text,
         links},
    };
    f.insert(f.end(), rest.begin(), rest.end());
    return f;
}

std::vector<ProfileField> systemFields() {
    std::vector<ProfileField> f = identity(ProfileKind::System);
    const QString node = tr("Node");
    const QString host = tr("Host CPU and PCIe");
    const QString network = tr("Network");
    const std::vector<ProfileField> rest = {
        {"default_gpu", tr("Ships with GPU"), {}, tr("a GPU id; empty: any GPU"), T::Text, node},
        {"compatible_gpus",
         tr("Takes GPUs"),
         {},
         tr("GPU ids separated by commas; empty: by form factor"),
         T::IdList,
         node},
        {"gpu_form_factor",
         tr("GPU form factor"),
         {},
         tr("without a GPU list: pcie cards or sxm modules"),
         T::Choice,
         node,
         {"pcie", "sxm"}},
        {"gpus_per_node",
         tr("GPUs per node"),
         {},
         tr("the most one node holds (1–64)"),
         T::Number,
         node},
        {"max_nodes", tr("Nodes at most"), {}, tr("1 for a single machine"), T::Number, node},
        {"intra_node",
         tr("GPU links"),
         {},
         tr("pcie, an NVLink hybrid cube-mesh (with pairs), or nvswitch"),
         T::Choice,
         node,
         {"pcie", "nvlink-cube-mesh", "nvswitch"}},
        {"nvlink_pairs",
         tr("NVLink pairs"),
         {},
         tr("[[gpu a, gpu b, links], …] from GPU 0: a cube-mesh's wiring, or bridged PCIe cards"),
         T::JsonList,
         node},
        {"nvswitch_gbps_per_gpu", tr("NVSwitch per GPU"), tr("GB/s"),
         tr("nvswitch only: per GPU per direction"), T::Number, node},
        {"nvlink_domain_nodes",
         tr("Nodes per NVLink domain"),
         {},
         tr("nvswitch only: nodes one switch fabric joins (GB200 NVL72: 18); empty: 1"),
         T::Number,
         node},
        {"nvlink_sharp",
         tr("NVLink SHARP"),
         {},
         tr("the NVSwitches reduce in the switch"),
         T::Flag,
         node},
        {"cpu_sockets", tr("CPU sockets"), {}, tr("1–16"), T::Number, host},
        {"cpu_cores_per_node", tr("CPU cores"), tr("per node"),
         tr("physical cores that decode real images; 0: not known, never a limit"), T::Number,
         host},
        {"cpu_threads_per_node", tr("CPU threads"), tr("per node"),
         tr("hardware threads; at least the cores"), T::Number, host},
        {"cpu_memory_bandwidth_gbps", tr("CPU memory bandwidth"), tr("GB/s"),
         tr("the CPU parameter server's update; 0: not known"), T::Number, host},
        {"inter_socket_gbps", tr("Between sockets"), tr("GB/s"),
         tr("QPI/UPI per direction; 0: not known"), T::Number, host},
        {"pcie_gen", tr("PCIe generation"), {}, tr("of the GPU links"), T::Number, host},
        {"gpus_per_pcie_switch",
         tr("GPUs per PCIe switch"),
         {},
         tr("sharing one uplink; 1: each GPU on its own link"),
         T::Number,
         host},
        {"pcie_gbps", tr("PCIe per link"), tr("GB/s"),
         tr("effective, per direction (PCIe 4.0 x16: 25)"), T::Number, host},
        {"host_pcie_gbps", tr("Host PCIe"), tr("GB/s"),
         tr("what the host sustains over all GPU uplinks"), T::Number, host},
        {"host_watts_per_node", tr("Host power"), tr("W"),
         tr("a node without its GPUs, for the plan's energy; 0: not known"), T::Number, host},
        {"network",
         tr("Network"),
         {},
         tr("none for a single node; or a name"),
         T::Choice,
         network,
         {"none", "10gbe", "25gbe", "100gbe", "edr-ib", "hdr-ib", "ndr-ib"}},
        {"nics_per_node", tr("NICs"), tr("per node"), tr("at least 1 with a network"), T::Number,
         network},
        {"nic_gbps", tr("NIC rate"), tr("GB/s"), tr("per NIC per direction (100 Gb/s = 12.5)"),
         T::Number, network},
        {"network_latency_us", tr("Network latency"), tr("µs"), tr("one way, one message"),
         T::Number, network},
        {"network_sharp",
         tr("Network SHARP"),
         {},
         tr("the InfiniBand switches reduce"),
         T::Flag,
         network},
    };
    f.insert(f.end(), rest.begin(), rest.end());
    return f;
}

} // namespace

std::vector<ProfileField> profileFields(ProfileKind kind) {
    return kind == ProfileKind::Gpu ? gpuFields() : systemFields();
}

} // namespace iterscope::ui
