"""NVRTC compiles of the kernels' source, as CuPy makes them, through libnvrtc's C API
(``ctypes``): where libnvrtc is found, without CuPy or a GPU."""


def find_nvrtc():
    """libnvrtc from the loader path, CUDA_PATH or the ``nvidia-cuda-nvrtc-cu12`` wheel;
    None where there is none."""
    import ctypes
    import ctypes.util
    import glob
    import os

    candidates = [ctypes.util.find_library("nvrtc")]
    for root in (os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidates += glob.glob(os.path.join(root, "lib64", "libnvrtc.so*"))
    try:
        import nvidia.cuda_nvrtc

        candidates += glob.glob(os.path.join(nvidia.cuda_nvrtc.__path__[0], "lib",
                                             "libnvrtc.so*"))
    except ImportError:
        pass
    for path in filter(None, candidates):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def nvrtc_compile(lib, source, options):
    """NVRTC's status and log for ``source`` compiled with ``options``."""
    import ctypes

    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"kernel.cu", 0,
                                  None, None) == 0
    try:
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        status = lib.nvrtcCompileProgram(prog, len(options), opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        return status, log.value.decode(errors="replace")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
