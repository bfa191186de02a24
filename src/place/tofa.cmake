# Topology, outage probabilities and link costs (morph_topology), and the
# mapping strategies with Scotch 7 (morph_map): paper 004, TOFA.
# Kept in its own file so that src/place/CMakeLists.txt only includes it.
add_library(morph_topology STATIC
  ${CMAKE_CURRENT_LIST_DIR}/topology.c ${CMAKE_CURRENT_LIST_DIR}/topology_parse.c
  ${CMAKE_CURRENT_LIST_DIR}/topology_route.c ${CMAKE_CURRENT_LIST_DIR}/faults.c
  ${CMAKE_CURRENT_LIST_DIR}/linkcost.c)
target_include_directories(morph_topology PUBLIC ${CMAKE_SOURCE_DIR}/include
                           PRIVATE ${CMAKE_SOURCE_DIR}/src)
set_target_properties(morph_topology PROPERTIES POSITION_INDEPENDENT_CODE ON)

# Debian's libscotch-dev: headers in scotch/, no pkg-config file.
find_path(MORPH_SCOTCH_INCLUDE scotch/scotch.h)
find_library(MORPH_SCOTCH_LIB scotch)
find_library(MORPH_SCOTCHERR_LIB scotcherr)
if(MORPH_SCOTCH_INCLUDE AND MORPH_SCOTCH_LIB AND MORPH_SCOTCHERR_LIB)
  add_library(morph_map STATIC
    ${CMAKE_CURRENT_LIST_DIR}/map.c ${CMAKE_CURRENT_LIST_DIR}/map_ctx.c ${CMAKE_CURRENT_LIST_DIR}/map_common.c
    ${CMAKE_CURRENT_LIST_DIR}/map_default.c ${CMAKE_CURRENT_LIST_DIR}/map_random.c
    ${CMAKE_CURRENT_LIST_DIR}/map_greedy.c ${CMAKE_CURRENT_LIST_DIR}/map_tofa.c
    ${CMAKE_CURRENT_LIST_DIR}/map_box.c
    ${CMAKE_CURRENT_LIST_DIR}/map_remap.c ${CMAKE_CURRENT_LIST_DIR}/scotch.c)
  target_include_directories(morph_map PUBLIC ${CMAKE_SOURCE_DIR}/include
                             PRIVATE ${CMAKE_SOURCE_DIR}/src ${MORPH_SCOTCH_INCLUDE})
  target_link_libraries(morph_map PUBLIC morph_topology ${MORPH_SCOTCH_LIB} ${MORPH_SCOTCHERR_LIB}
                                         Threads::Threads m)
  set_target_properties(morph_map PROPERTIES POSITION_INDEPENDENT_CODE ON)
else()
  message(FATAL_ERROR "morph: Scotch 7 not found (libscotch-dev; scripts/setup.sh installs it)")
endif()
