# libspatialmedia: the C ABI of spatial-media (shared library + header + pkg-config file).
#
#   make                          # release build of the shared library
#   make install PREFIX=/opt/sm   # installs lib/, include/, lib/pkgconfig/spatialmedia.pc
#   make example PREFIX=/opt/sm   # builds examples/c/spatial_info against the installed library
#   make check                    # scripts/sdk-check.sh (install to a temporary prefix, C + Python)
#
# Variables: PREFIX (default /usr/local), DESTDIR (staging root for packagers), SCRATCH (SwiftPM
# scratch directory, default .build), CONFIG (release or debug), SWIFT (the swift driver).

PREFIX ?= /usr/local
DESTDIR ?=
SCRATCH ?= .build
CONFIG ?= release
SWIFT ?= swift
CC ?= cc

LIBDIR := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
PKGCONFIGDIR := $(LIBDIR)/pkgconfig

UNAME := $(shell uname -s)
ifeq ($(UNAME),Darwin)
  LIBNAME := libspatialmedia.dylib
  # The Swift runtime ships with macOS (/usr/lib/swift); nothing else to find.
  SWIFT_RUNTIME_DIR := /usr/lib/swift
else
  LIBNAME := libspatialmedia.so
  # The shared library needs libswiftCore.so & co. at run time. They live next to the toolchain;
  # the library's RUNPATH already names this directory, and the .pc file adds it to programs too.
  SWIFT_RUNTIME_DIR := $(abspath $(dir $(realpath $(shell command -v $(SWIFT))))../lib/swift/linux)
endif

VERSION := $(shell sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/SpatialMedia/SpatialMedia.swift)

.PHONY: all build install uninstall example check clean-cabi

all: build

build:
	$(SWIFT) build -c $(CONFIG) --scratch-path $(SCRATCH) --product spatialmedia

# The directory SwiftPM builds into (e.g. .build/x86_64-unknown-linux-gnu/release).
BINDIR = $(shell $(SWIFT) build -c $(CONFIG) --scratch-path $(SCRATCH) --show-bin-path)

install: build
	install -d "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(PKGCONFIGDIR)"
	install -m 755 "$(BINDIR)/$(LIBNAME)" "$(DESTDIR)$(LIBDIR)/$(LIBNAME)"
	install -m 644 include/spatialmedia.h "$(DESTDIR)$(INCLUDEDIR)/spatialmedia.h"
	printf '%s\n' \
	  'prefix=$(PREFIX)' \
	  'libdir=$${prefix}/lib' \
	  'includedir=$${prefix}/include' \
	  'swiftruntimedir=$(SWIFT_RUNTIME_DIR)' \
	  '' \
	  'Name: spatialmedia' \
	  'Description: Spatial media (MV-HEVC spatial video, stereo HEIC) inspection and editing, C ABI' \
	  'Version: $(VERSION)' \
	  'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -Wl,-rpath,$${swiftruntimedir} -lspatialmedia' \
	  > "$(DESTDIR)$(PKGCONFIGDIR)/spatialmedia.pc"
	@echo "installed $(LIBNAME), spatialmedia.h and spatialmedia.pc under $(DESTDIR)$(PREFIX)"
	@echo "use: PKG_CONFIG_PATH=$(PKGCONFIGDIR) cc app.c \$$(pkg-config --cflags --libs spatialmedia)"

uninstall:
	rm -f "$(DESTDIR)$(LIBDIR)/$(LIBNAME)" "$(DESTDIR)$(INCLUDEDIR)/spatialmedia.h" "$(DESTDIR)$(PKGCONFIGDIR)/spatialmedia.pc"

# Builds the C example against an installed prefix (run `make install PREFIX=...` first).
example:
	mkdir -p "$(SCRATCH)/examples"
	PKG_CONFIG_PATH="$(PKGCONFIGDIR)" sh -c '$(CC) -std=c11 -Wall -Wextra -Werror -pedantic -o "$(SCRATCH)/examples/spatial_info" examples/c/spatial_info.c $$(pkg-config --cflags --libs spatialmedia)'
	@echo "built $(SCRATCH)/examples/spatial_info"

check:
	SCRATCH="$(SCRATCH)" bash scripts/sdk-check.sh
