# Embeds data files into the binary at build time: each file becomes a byte array in a generated
# C++ source, and memwall::data::embedded_files() lists them (see src/memwall/core/embedded.h).
function(memwall_embed_files target)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
  set(out ${gen_dir}/embedded_data.cc)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${CMAKE_CURRENT_SOURCE_DIR} "-DFILES=${ARGN}"
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_script.cmake
    DEPENDS ${ARGN} ${CMAKE_SOURCE_DIR}/cmake/embed_script.cmake
    COMMENT "Embedding memwall data files"
    VERBATIM)
  add_library(${target} STATIC ${out})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/src)
endfunction()
