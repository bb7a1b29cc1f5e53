// OpenVINO's C API, loaded at run time: Sightline does not link libopenvino_c, so a machine
// without OpenVINO still runs the cascades and OpenCV's DNN module, and asking for OpenVINO there
// is a clean error instead of a loader failure at start. The function pointers take their types
// from OpenVINO's own header (installed by Scripts/deps/build/openvino.sh), so a mismatch is a
// compile error. The variadic ov_core_compile_model and ov_core_set_property, which Swift cannot
// call, get fixed-arity wrappers.
#pragma once

#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <openvino/c/openvino.h>

typedef struct {
    __typeof__(&ov_get_openvino_version) get_openvino_version;
    __typeof__(&ov_version_free) version_free;
    __typeof__(&ov_get_last_err_msg) get_last_err_msg;
    __typeof__(&ov_get_error_info) get_error_info;
    __typeof__(&ov_core_create) core_create;
    __typeof__(&ov_core_read_model) core_read_model;
    __typeof__(&ov_core_compile_model) core_compile_model;
    __typeof__(&ov_core_set_property) core_set_property;
    __typeof__(&ov_core_import_model) core_import_model;
    __typeof__(&ov_compiled_model_export_model) compiled_model_export_model;
    __typeof__(&ov_compiled_model_get_property) compiled_model_get_property;
    __typeof__(&ov_compiled_model_free) compiled_model_free;
    __typeof__(&ov_model_free) model_free;
    __typeof__(&ov_model_inputs_size) model_inputs_size;
    __typeof__(&ov_model_outputs_size) model_outputs_size;
    __typeof__(&ov_model_const_output_by_index) model_const_output_by_index;
    __typeof__(&ov_model_const_output_by_name) model_const_output_by_name;
    __typeof__(&ov_model_reshape_single_input) model_reshape_single_input;
    __typeof__(&ov_port_get_any_name) port_get_any_name;
    __typeof__(&ov_output_const_port_free) output_const_port_free;
    __typeof__(&ov_partial_shape_create_static) partial_shape_create_static;
    __typeof__(&ov_partial_shape_free) partial_shape_free;
    __typeof__(&ov_compiled_model_create_infer_request) compiled_model_create_infer_request;
    __typeof__(&ov_infer_request_set_input_tensor) infer_request_set_input_tensor;
    __typeof__(&ov_infer_request_infer) infer_request_infer;
    __typeof__(&ov_infer_request_get_tensor) infer_request_get_tensor;
    __typeof__(&ov_infer_request_free) infer_request_free;
    __typeof__(&ov_tensor_create_from_host_ptr) tensor_create_from_host_ptr;
    __typeof__(&ov_tensor_data) tensor_data;
    __typeof__(&ov_tensor_get_size) tensor_get_size;
    __typeof__(&ov_tensor_free) tensor_free;
    __typeof__(&ov_shape_create) shape_create;
    __typeof__(&ov_shape_free) shape_free;
    __typeof__(&ov_free) free_string;
} slv_openvino_api;

/// Opens `path` (a file path, or a soname the dynamic loader looks up) and resolves every
/// function of `api`. Returns NULL on success, or the loader's message (or the name of the
/// first missing symbol, in `missing`) on failure; the library stays loaded for the process.
static inline const char *slv_openvino_load(const char *path, slv_openvino_api *api, const char **missing) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    *missing = NULL;
    if (!lib) return dlerror();
#define SLV_OV_SYMBOL(field, name) \
    if (!(api->field = (__typeof__(api->field))dlsym(lib, #name))) { *missing = #name; return "symbol not found"; }
    SLV_OV_SYMBOL(get_openvino_version, ov_get_openvino_version)
    SLV_OV_SYMBOL(version_free, ov_version_free)
    SLV_OV_SYMBOL(get_last_err_msg, ov_get_last_err_msg)
    SLV_OV_SYMBOL(get_error_info, ov_get_error_info)
    SLV_OV_SYMBOL(core_create, ov_core_create)
    SLV_OV_SYMBOL(core_read_model, ov_core_read_model)
    SLV_OV_SYMBOL(core_compile_model, ov_core_compile_model)
    SLV_OV_SYMBOL(core_set_property, ov_core_set_property)
    SLV_OV_SYMBOL(core_import_model, ov_core_import_model)
    SLV_OV_SYMBOL(compiled_model_export_model, ov_compiled_model_export_model)
    SLV_OV_SYMBOL(compiled_model_get_property, ov_compiled_model_get_property)
    SLV_OV_SYMBOL(compiled_model_free, ov_compiled_model_free)
    SLV_OV_SYMBOL(model_free, ov_model_free)
    SLV_OV_SYMBOL(model_inputs_size, ov_model_inputs_size)
    SLV_OV_SYMBOL(model_outputs_size, ov_model_outputs_size)
    SLV_OV_SYMBOL(model_const_output_by_index, ov_model_const_output_by_index)
    SLV_OV_SYMBOL(model_const_output_by_name, ov_model_const_output_by_name)
    SLV_OV_SYMBOL(model_reshape_single_input, ov_model_reshape_single_input)
    SLV_OV_SYMBOL(port_get_any_name, ov_port_get_any_name)
    SLV_OV_SYMBOL(output_const_port_free, ov_output_const_port_free)
    SLV_OV_SYMBOL(partial_shape_create_static, ov_partial_shape_create_static)
    SLV_OV_SYMBOL(partial_shape_free, ov_partial_shape_free)
    SLV_OV_SYMBOL(compiled_model_create_infer_request, ov_compiled_model_create_infer_request)
    SLV_OV_SYMBOL(infer_request_set_input_tensor, ov_infer_request_set_input_tensor)
    SLV_OV_SYMBOL(infer_request_infer, ov_infer_request_infer)
    SLV_OV_SYMBOL(infer_request_get_tensor, ov_infer_request_get_tensor)
    SLV_OV_SYMBOL(infer_request_free, ov_infer_request_free)
    SLV_OV_SYMBOL(tensor_create_from_host_ptr, ov_tensor_create_from_host_ptr)
    SLV_OV_SYMBOL(tensor_data, ov_tensor_data)
    SLV_OV_SYMBOL(tensor_get_size, ov_tensor_get_size)
    SLV_OV_SYMBOL(tensor_free, ov_tensor_free)
    SLV_OV_SYMBOL(shape_create, ov_shape_create)
    SLV_OV_SYMBOL(shape_free, ov_shape_free)
    SLV_OV_SYMBOL(free_string, ov_free)
#undef SLV_OV_SYMBOL
    return NULL;
}

/// The CPU settings Sightline compiles with: `streams` streams sharing `threads` threads (each
/// stream holds its own activation buffers), no core pinning (the cores are shared with
/// decoding), and the arithmetic asked for ("f32" by default: on CPUs with bf16 instructions
/// OpenVINO would otherwise compute in bf16, which moves boxes by several pixels and makes the
/// output depend on the machine). Keys and values, in pairs.
#define SLV_OV_CPU_SETTINGS 4
static inline void slv_openvino_cpu_settings(const char *streams, const char *threads, const char *precision,
                                             const char *settings[2 * SLV_OV_CPU_SETTINGS]) {
    const char *pairs[2 * SLV_OV_CPU_SETTINGS] = {"NUM_STREAMS", streams, "INFERENCE_NUM_THREADS", threads,
                                                  "ENABLE_CPU_PINNING", "NO", "INFERENCE_PRECISION_HINT", precision};
    for (int i = 0; i < 2 * SLV_OV_CPU_SETTINGS; i++) settings[i] = pairs[i];
}

/// Compiles `model` for the CPU with those settings.
static inline ov_status_e slv_openvino_compile_cpu(const slv_openvino_api *api, const ov_core_t *core, const ov_model_t *model,
                                                  const char *streams, const char *threads, const char *precision,
                                                  ov_compiled_model_t **compiled) {
    const char *s[2 * SLV_OV_CPU_SETTINGS];
    slv_openvino_cpu_settings(streams, threads, precision, s);
    return api->core_compile_model(core, model, "CPU", 2 * SLV_OV_CPU_SETTINGS, compiled,
                                   s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
}

/// Makes the same settings the CPU's defaults in `core`, for `ov_core_import_model`, which takes
/// none: a compiled model imported without them runs one pinned stream and reports bf16.
/// (`ov_core_set_property` reads one key and value per call, whatever follows them.)
static inline ov_status_e slv_openvino_set_cpu_defaults(const slv_openvino_api *api, const ov_core_t *core,
                                                        const char *streams, const char *threads, const char *precision) {
    const char *s[2 * SLV_OV_CPU_SETTINGS];
    slv_openvino_cpu_settings(streams, threads, precision, s);
    for (int i = 0; i < 2 * SLV_OV_CPU_SETTINGS; i += 2) {
        ov_status_e status = api->core_set_property(core, "CPU", s[i], s[i + 1]);
        if (status != OK) return status;
    }
    return OK;
}

/// Caps glibc's malloc arenas (by default up to 8 per core, one per thread that meets contention).
/// OpenVINO's inference threads each took one, and the memory freed in an arena stays in the
/// process: at 1080p the cap took 35-40 MB off the peak RSS, at the same speed.
static inline void slv_limit_malloc_arenas(int arenas) {
    mallopt(M_ARENA_MAX, arenas);
}

/// Serves every allocation of at least `bytes` from its own mapping, returned to the system when
/// freed. glibc's default threshold rises to the largest block freed so far (up to 32 MiB), after
/// which the per-frame buffers (network outputs, frame copies, their decoded faces) come from the
/// arenas, where what is freed stays in the process: a fixed threshold took 25-35 MB off the peak
/// RSS of a 1080p anonymization.
static inline void slv_fix_mmap_threshold(int bytes) {
    mallopt(M_MMAP_THRESHOLD, bytes);
}
