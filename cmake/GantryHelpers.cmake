# One helper per kind of target, so every folder's CMakeLists.txt reads the same.

# Designated initialisers name only the fields that differ from their defaults on purpose;
# gcc 12 would warn for every field left out (-Wmissing-field-initializers).
set(GANTRY_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers)

# gantry_library(NAME SOURCES a.cpp b.cpp DEPS other_lib ...)
# A static library whose headers are included as "folder/file.hpp" from the project root.
function(gantry_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${GANTRY_UNITY_BUILD})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  target_compile_options(${name} PRIVATE ${GANTRY_WARNINGS})
endfunction()

# gantry_test(NAME SOURCES a_test.cpp ... DEPS lib ... [LABELS label ...])
# A GoogleTest executable; each TEST becomes its own CTest entry, with the given CTest labels
# (`slow`: runs whole published experiments; `ctest -LE slow` skips them).
function(gantry_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${GANTRY_UNITY_BUILD})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_options(${name} PRIVATE ${GANTRY_WARNINGS})
  target_compile_definitions(${name} PRIVATE
    GANTRY_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    GANTRY_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300 LABELS "${ARG_LABELS}")
endfunction()

# gantry_bench(NAME SOURCES a_bench.cpp ... DEPS lib ...)
function(gantry_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark benchmark::benchmark_main)
  target_compile_options(${name} PRIVATE ${GANTRY_WARNINGS})
endfunction()
