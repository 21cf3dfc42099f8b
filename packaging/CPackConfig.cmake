# Packaging: `cpack -G DEB` in a release build tree configured with
# -DCMAKE_INSTALL_PREFIX=/usr (docs/packaging.md). Runtime dependencies come from
# dpkg-shlibdeps, so they follow whatever Qt, protobuf and ONNX the build linked.
include(${CMAKE_CURRENT_LIST_DIR}/install.cmake)

set(CPACK_PACKAGE_NAME iterscope)
set(CPACK_PACKAGE_VENDOR "The Iterscope developers")
set(CPACK_PACKAGE_CONTACT "The Iterscope developers <iterscope@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Predict CNN training iteration time on multi-GPU platforms")
set(CPACK_PACKAGE_DESCRIPTION
    "Iterscope predicts how long one synchronous data-parallel training iteration of a
convolutional network takes on a multi-GPU platform, from the spec sheets of the GPU
and the machine, without running the network (after Pei et al., IEEE Access 2019).
It shows where the time goes layer by layer, compares interconnects and GPU counts,
and exports charts and traces. Includes the iterscope GUI (when built), the
iterscope-cli command-line tool, GPU and system profiles and example networks.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY iterscope)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(TARGET iterscope)
    # Loaded as plugins, so dpkg-shlibdeps cannot see them: the platform plugins (xcb,
    # offscreen); the SVG icon engine comes with libqt6svg6, which the GUI links.
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
endif()

set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build/" "/out/" "\\\\.user$")

include(CPack)
