import BinaryIO

extension AnnexB {
    /// Reads the NAL units of an Annex B stream from a ``/BinaryIO/ByteSource`` piece by piece, so memory stays
    /// bounded by the piece size plus the largest NAL unit whatever the stream's length.
    ///
    /// The rules are those of ``AnnexB/nalRanges(in:baseOffset:)``: only zero bytes may precede the first
    /// start code, trailing zero bytes belong to no NAL unit, and a NAL unit larger than
    /// ``/BinaryIO/Limits/maxNALUnitSize`` is an error naming that limit (checked while it is still being read).
    public struct Scanner {
        let source: any ByteSource
        let pieceSize: Int
        let limits: Limits
        /// Bytes `[bufferOffset, bufferOffset + buffer.count)` of the stream.
        var buffer: [UInt8] = []
        var bufferOffset: UInt64 = 0
        /// The next stream offset to read from the source.
        var readOffset: UInt64 = 0
        /// Where the search for the next `01` of a start code resumes.
        var search = 2
        /// Payload start (buffer index) of the NAL unit being collected, once the first start code is seen.
        var current: Int? = nil
        /// Set once the last NAL unit has been returned.
        var done = false

        /// Scans `source` reading `pieceSize` bytes at a time (default 4 MiB).
        public init(source: any ByteSource, pieceSize: Int = 4 << 20, limits: Limits = .default) {
            self.source = source
            self.pieceSize = max(64, pieceSize)
            self.limits = limits
        }

        /// The absolute byte range of the next NAL unit (header included, start code excluded), or `nil` at the end.
        public mutating func nextRange() throws(ParseError) -> Range<UInt64>? {
            guard let r = try nextIndices() else { return nil }
            return (bufferOffset + UInt64(r.lowerBound))..<(bufferOffset + UInt64(r.upperBound))
        }

        /// The next NAL unit with its absolute offset, or `nil` at the end. Empty or one-byte NAL units are errors.
        public mutating func next() throws(ParseError) -> NALUnit? {
            guard let r = try nextIndices() else { return nil }
            return try NALUnit(bytes: Array(buffer[r]), offset: bufferOffset + UInt64(r.lowerBound))
        }

        /// Buffer indices of the next NAL unit; valid until the next call.
        mutating func nextIndices() throws(ParseError) -> Range<Int>? {
            while !done {
                let hit = buffer.withUnsafeBufferPointer { AnnexB.nextStartCode(in: $0, from: search) }
                if let j = hit {
                    search = j + 1
                    if let c = current {
                        current = j + 1
                        return try finish(c, end: j - 2)
                    }
                    try checkLeadingZeros(upTo: j - 2)
                    current = j + 1
                    continue
                }
                search = max(2, buffer.count)
                if readOffset >= source.size {
                    done = true
                    guard let c = current else {
                        try checkLeadingZeros(upTo: buffer.count, atEnd: true)
                        return nil
                    }
                    return try finish(c, end: buffer.count)
                }
                try refill()
            }
            return nil
        }

        /// The range `start..<end` without trailing zero bytes, checked against the NAL size limit.
        func finish(_ start: Int, end: Int) throws(ParseError) -> Range<Int> {
            var e = end
            while e > start && buffer[e - 1] == 0 { e -= 1 }
            try Limits.check(e - start, limits.maxNALUnitSize, "maxNALUnitSize", offset: bufferOffset + UInt64(start))
            return start..<e
        }

        /// Before the first start code only zero bytes are allowed.
        func checkLeadingZeros(upTo end: Int, atEnd: Bool = false) throws(ParseError) {
            guard let bad = buffer[0..<min(end, buffer.count)].firstIndex(where: { $0 != 0 }) else { return }
            if atEnd && bufferOffset == 0 {
                throw ParseError(.notRecognised, "missing start code: no 00 00 01 in \(buffer.count) bytes")
            }
            throw ParseError(
                .notRecognised, offset: bufferOffset + UInt64(bad),
                "missing start code: non-zero bytes before the first start code")
        }

        /// Drops the bytes no longer needed and appends the next piece of the source.
        mutating func refill() throws(ParseError) {
            // Keep the NAL unit in progress, or (before the first start code) the last two bytes, which may
            // begin a start code.
            let keep = current ?? max(0, buffer.count - 2)
            if current == nil { try checkLeadingZeros(upTo: keep) }
            if keep > 0 {
                buffer.removeFirst(keep)
                bufferOffset += UInt64(keep)
                search = max(2, search - keep)
                if let c = current { current = c - keep }
            }
            if let c = current {
                try Limits.check(
                    buffer.count - c, limits.maxNALUnitSize, "maxNALUnitSize", offset: bufferOffset + UInt64(c))
            }
            let piece = try source.read(at: readOffset, count: pieceSize)
            guard !piece.isEmpty else {
                throw ParseError(.io, offset: readOffset, "the stream ended early while reading")
            }
            readOffset += UInt64(piece.count)
            buffer.append(contentsOf: piece)
        }
    }
}
