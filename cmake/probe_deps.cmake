# Dependencies of `memwall probe`.
#
# OpenBLAS (Debian libopenblas-dev, found through pkg-config) gives the host GEMM ceilings; without
# it memwall still builds and the probe says it cannot measure GEMMs. cblas_sbgemm (bf16) exists
# only in OpenBLAS builds with BUILD_BFLOAT16, so it is detected by linking against it. memwall
# itself does not link OpenBLAS: the probe opens it at run time (src/memwall/probe/blas_gemm.cc),
# because a linked OpenBLAS starts its threads in every memwall process; the build takes its
# cblas.h prototypes and the path of the library it found (the fallback after libopenblas.so.0).
#
# The CUDA part (src/memwall/probe/cuda/) is built only when the CUDA toolkit is found and
# MEMWALL_CUDA is ON. MEMWALL_CUDA defaults to ON only when the toolkit is found AND the
# environment variable MEMWALL_CUDA=1 is set, so ordinary (CI) builds do not compile CUDA code.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(OPENBLAS QUIET IMPORTED_TARGET openblas)
endif()
set(MEMWALL_HAVE_OPENBLAS_BF16 0)
if(OPENBLAS_FOUND)
  include(CheckSymbolExists)
  set(CMAKE_REQUIRED_INCLUDES ${OPENBLAS_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LINK_OPTIONS ${OPENBLAS_LDFLAGS})
  set(CMAKE_REQUIRED_QUIET ON)
  check_symbol_exists(cblas_sbgemm "cblas.h" MEMWALL_OPENBLAS_HAS_SBGEMM)
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  unset(CMAKE_REQUIRED_QUIET)
  if(MEMWALL_OPENBLAS_HAS_SBGEMM)
    set(MEMWALL_HAVE_OPENBLAS_BF16 1)
  endif()
  list(GET OPENBLAS_LINK_LIBRARIES 0 MEMWALL_OPENBLAS_LIBRARY)
  message(STATUS "memwall probe: OpenBLAS ${OPENBLAS_VERSION} (cblas_sbgemm: ${MEMWALL_HAVE_OPENBLAS_BF16})")
else()
  message(STATUS "memwall probe: OpenBLAS not found; host GEMM ceilings disabled")
endif()

include(CheckLanguage)
check_language(CUDA)
set(_memwall_cuda_default OFF)
if(CMAKE_CUDA_COMPILER AND "$ENV{MEMWALL_CUDA}" STREQUAL "1")
  set(_memwall_cuda_default ON)
endif()
option(MEMWALL_CUDA "Build the CUDA part of memwall probe (needs the CUDA toolkit)"
       ${_memwall_cuda_default})
if(MEMWALL_CUDA AND NOT CMAKE_CUDA_COMPILER)
  message(WARNING "MEMWALL_CUDA is ON but no CUDA compiler was found; the CUDA probe is not built")
  set(MEMWALL_CUDA OFF CACHE BOOL "" FORCE)
endif()
if(MEMWALL_CUDA)
  # Ampere, Ada, Hopper and PTX for newer GPUs; scripts/gpu-check.sh passes "native" instead.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-real;89-real;90-real;90-virtual")
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "memwall probe: CUDA part enabled (${CMAKE_CUDA_COMPILER_VERSION})")
endif()

# Links the probe's dependencies into `target` and tells the two probe sources that ask which
# exist (definitions on those files only, so the rest of the library keeps its compile lines).
function(memwall_link_probe_deps target)
  set(have_blas 0)
  set(blas_library "")
  if(OPENBLAS_FOUND)
    set(have_blas 1)
    set(blas_library ${MEMWALL_OPENBLAS_LIBRARY})
    # SYSTEM, as the imported target gave them: openblas_config.h uses C99 _Complex.
    target_include_directories(${target} SYSTEM PRIVATE ${OPENBLAS_INCLUDE_DIRS})
  endif()
  set(have_cuda 0)
  if(MEMWALL_CUDA)
    set(have_cuda 1)
    add_subdirectory(${CMAKE_SOURCE_DIR}/src/memwall/probe/cuda ${CMAKE_BINARY_DIR}/probe_cuda)
    target_link_libraries(${target} PRIVATE memwall_probe_cuda)
  endif()
  set_source_files_properties(
    ${CMAKE_SOURCE_DIR}/src/memwall/probe/blas_gemm.cc
    ${CMAKE_SOURCE_DIR}/src/memwall/probe/gpu_probe_stub.cc
    PROPERTIES COMPILE_DEFINITIONS
    "MEMWALL_HAVE_OPENBLAS=${have_blas};MEMWALL_HAVE_OPENBLAS_BF16=${MEMWALL_HAVE_OPENBLAS_BF16};MEMWALL_OPENBLAS_LIBRARY=\"${blas_library}\";MEMWALL_HAVE_CUDA=${have_cuda}")
endfunction()
