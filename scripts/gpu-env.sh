# Sourced by the GPU scripts: unpack the missing development packages
# (DEPS_DIR: .deb files), configure GPU_BUILD (default build-gpu) for Hopper
# plus PTX, with OpenCL if GPU_OPENCL=ON, build the targets named in
# GPU_TARGETS. Sets b (the build folder); logs in $OUT.
if [ -n "${DEPS_DIR:-}" ]; then
  mkdir -p /opt/devdeps
  for f in "$DEPS_DIR"/*.deb; do dpkg -x "$f" /opt/devdeps; done
  # the .pc files name /usr: point them at the unpacked tree
  for pc in /opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc /opt/devdeps/usr/share/pkgconfig/*.pc; do
    [ -f "$pc" ] && sed -i 's|^prefix=/usr$|prefix=/opt/devdeps/usr|' "$pc"
  done
  # absolute links into /lib or /usr/lib: follow them inside the unpacked tree
  for l in $(find /opt/devdeps -xtype l); do
    t=$(readlink "$l"); case "$t" in /*) [ -e "/opt/devdeps$t" ] && ln -sf "/opt/devdeps$t" "$l" ;; esac
  done
  rm -f /opt/devdeps/usr/lib/x86_64-linux-gnu/*.a
  export PATH=/opt/devdeps/usr/bin:$PATH CMAKE_PREFIX_PATH=/opt/devdeps/usr
  export PKG_CONFIG_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig:/opt/devdeps/usr/share/pkgconfig
  export LD_LIBRARY_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu:/opt/devdeps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
b=${GPU_BUILD:-build-gpu}
cmake -S . -B $b -DPARAC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" -DPARAC_OPENCL=${GPU_OPENCL:-OFF} \
      -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build $b -j"$(nproc)" --target $GPU_TARGETS > "$OUT/build.log" 2>&1 \
  || { grep -E 'error' "$OUT/build.log" | head -30; exit 1; }
