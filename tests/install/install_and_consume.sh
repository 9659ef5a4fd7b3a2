#!/usr/bin/env bash
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$BUILD_DIR" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib* | head -1)
# pkg-config, shared library
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
"$CC" -std=c11 -Wall -Wextra -Werror "$SOURCE_DIR/consumer.c" -o "$work/consumer_pc" \
      $(pkg-config --cflags --libs parac)
LD_LIBRARY_PATH=$libdir "$work/consumer_pc"
# CMake package
mkdir -p "$work/cm"
cat > "$work/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(parac 0.1 REQUIRED)
add_executable(consumer_cmake $SOURCE_DIR/consumer.c)
target_link_libraries(consumer_cmake PRIVATE parac::parac_shared)
CM
cmake -S "$work/cm" -B "$work/cm/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cm/build" >/dev/null
LD_LIBRARY_PATH=$libdir "$work/cm/build/consumer_cmake"
echo "install and consume: ok"
