# Install rules for everything that is not a program: examples, desktop integration, icons,
# man pages, documentation. Included by CPackConfig.cmake at the end of the top-level
# CMakeLists, so every target is known here and if(TARGET ...) tells what was built.
# (The programs and profiles/ install themselves: app/CMakeLists.txt, core/cuda/, top level.)
set(ITERSCOPE_APP_ID io.github.iterscope.Iterscope)
set(_src ${CMAKE_CURRENT_LIST_DIR}/..)

install(DIRECTORY ${_src}/resources/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/iterscope/examples)
install(FILES ${_src}/README.md ${_src}/docs/profiles.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/iterscope)

# Man pages are gzipped at build time (Debian policy; man reads both). gzip -n keeps the
# output byte-identical between builds.
find_program(ITERSCOPE_GZIP gzip)
set(_man_pages iterscope-cli)
if(TARGET iterscope)
    list(APPEND _man_pages iterscope)
endif()
if(TARGET iterscope-calibrate)
    list(APPEND _man_pages iterscope-calibrate)
endif()
set(_man_outputs)
foreach(page ${_man_pages})
    set(_in ${_src}/docs/man/${page}.1)
    if(ITERSCOPE_GZIP)
        set(_out ${CMAKE_BINARY_DIR}/man/${page}.1.gz)
        add_custom_command(OUTPUT ${_out}
            COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
            COMMAND ${ITERSCOPE_GZIP} -9 -n -c ${_in} > ${_out}
            DEPENDS ${_in} VERBATIM)
        list(APPEND _man_outputs ${_out})
    else()
        set(_out ${_in})
    endif()
    install(FILES ${_out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()
if(_man_outputs)
    add_custom_target(iterscope_man_pages ALL DEPENDS ${_man_outputs})
endif()

# Desktop entry, AppStream metainfo and icons only with the GUI they launch.
if(TARGET iterscope)
    install(FILES ${_src}/resources/desktop/${ITERSCOPE_APP_ID}.desktop
            DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
    install(FILES ${_src}/resources/desktop/${ITERSCOPE_APP_ID}.metainfo.xml
            DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
    install(FILES ${_src}/resources/icons/iterscope.svg
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
            RENAME ${ITERSCOPE_APP_ID}.svg)
    foreach(size 16 22 24 32 48 64 128 256 512)
        install(FILES ${_src}/resources/icons/hicolor/${size}x${size}/iterscope.png
                DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps
                RENAME ${ITERSCOPE_APP_ID}.png)
    endforeach()
endif()
