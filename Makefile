# libspatialmedia: the C ABI of spatial-media (shared library + header + pkg-config file).
#
#   make                          # release build of the shared library
#   make install PREFIX=/opt/sm   # installs lib/, include/, lib/pkgconfig/spatialmedia.pc, bin/spatial-media,
#                                 # its man page (share/man/man1) and bash/zsh/fish completions (share/…)
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
EXECDIR := $(PREFIX)/bin
MAN1DIR := $(PREFIX)/share/man/man1
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR := $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
PYTHON ?= python3

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

.PHONY: all build install uninstall example check clean-cabi docs

all: build

build:
	$(SWIFT) build -c $(CONFIG) --scratch-path $(SCRATCH) --product spatialmedia
	$(SWIFT) build -c $(CONFIG) --scratch-path $(SCRATCH) --product spatial-media

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
	install -d "$(DESTDIR)$(EXECDIR)" "$(DESTDIR)$(MAN1DIR)" "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)"
	install -m 755 "$(BINDIR)/spatial-media" "$(DESTDIR)$(EXECDIR)/spatial-media"
	# The man page and the completions are generated from the argument parser of the binary just built.
	$(PYTHON) scripts/make-manpage.py --binary "$(BINDIR)/spatial-media" -o "$(DESTDIR)$(MAN1DIR)/spatial-media.1"
	"$(BINDIR)/spatial-media" --generate-completion-script bash > "$(DESTDIR)$(BASHCOMPDIR)/spatial-media"
	"$(BINDIR)/spatial-media" --generate-completion-script zsh > "$(DESTDIR)$(ZSHCOMPDIR)/_spatial-media"
	"$(BINDIR)/spatial-media" --generate-completion-script fish > "$(DESTDIR)$(FISHCOMPDIR)/spatial-media.fish"
	@echo "installed $(LIBNAME), spatialmedia.h, spatialmedia.pc, spatial-media, its man page and completions under $(DESTDIR)$(PREFIX)"
	@echo "use: PKG_CONFIG_PATH=$(PKGCONFIGDIR) cc app.c \$$(pkg-config --cflags --libs spatialmedia)"

uninstall:
	rm -f "$(DESTDIR)$(LIBDIR)/$(LIBNAME)" "$(DESTDIR)$(INCLUDEDIR)/spatialmedia.h" "$(DESTDIR)$(PKGCONFIGDIR)/spatialmedia.pc"
	rm -f "$(DESTDIR)$(EXECDIR)/spatial-media" "$(DESTDIR)$(MAN1DIR)/spatial-media.1" "$(DESTDIR)$(BASHCOMPDIR)/spatial-media" \
	  "$(DESTDIR)$(ZSHCOMPDIR)/_spatial-media" "$(DESTDIR)$(FISHCOMPDIR)/spatial-media.fish"

# The man page and completions in $(SCRATCH)/docs, to look at without installing: man -l $(SCRATCH)/docs/spatial-media.1
docs:
	$(SWIFT) build -c $(CONFIG) --scratch-path $(SCRATCH) --product spatial-media
	mkdir -p "$(SCRATCH)/docs"
	$(PYTHON) scripts/make-manpage.py --binary "$(BINDIR)/spatial-media" -o "$(SCRATCH)/docs/spatial-media.1"
	for sh in bash zsh fish; do "$(BINDIR)/spatial-media" --generate-completion-script $$sh > "$(SCRATCH)/docs/spatial-media.$$sh"; done

# Builds the C example against an installed prefix (run `make install PREFIX=...` first).
example:
	mkdir -p "$(SCRATCH)/examples"
	PKG_CONFIG_PATH="$(PKGCONFIGDIR)" sh -c '$(CC) -std=c11 -Wall -Wextra -Werror -pedantic -o "$(SCRATCH)/examples/spatial_info" examples/c/spatial_info.c $$(pkg-config --cflags --libs spatialmedia)'
	@echo "built $(SCRATCH)/examples/spatial_info"

check:
	SCRATCH="$(SCRATCH)" bash scripts/sdk-check.sh
