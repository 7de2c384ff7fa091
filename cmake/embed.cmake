# Embeds data files into the binary at build time: each file becomes a byte array in a generated
# C++ source, and NAMESPACE::FUNCTION() lists them as memwall::data::EmbeddedFile entries whose
# paths are relative to the calling CMakeLists.txt's folder (see src/memwall/core/embedded.h).
# Usage: memwall_embed_files(target NAMESPACE memwall::data FUNCTION embedded_files FILES a.json ...)
function(memwall_embed_files target)
  cmake_parse_arguments(E "" "NAMESPACE;FUNCTION" "FILES" ${ARGN})
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
  set(out ${gen_dir}/${target}.cc)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${CMAKE_CURRENT_SOURCE_DIR} "-DFILES=${E_FILES}"
            -DNAMESPACE=${E_NAMESPACE} -DFUNCTION=${E_FUNCTION}
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_script.cmake
    DEPENDS ${E_FILES} ${CMAKE_SOURCE_DIR}/cmake/embed_script.cmake
    COMMENT "Embedding ${target} files"
    VERBATIM)
  add_library(${target} STATIC ${out})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/src)
endfunction()
