/// A column of an Arrow schema: its name, its type and whether it may hold nulls.
package struct ArrowField: Sendable, Equatable {
    /// The types the encoder writes.
    package indirect enum DataType: Sendable, Equatable {
        case int64
        case bool
        case utf8
        /// A list of values of one field's type.
        case list(ArrowField)
        case `struct`([ArrowField])
    }

    package let name: String
    package let type: DataType
    package let nullable: Bool

    package init(_ name: String, _ type: DataType, nullable: Bool = false) {
        self.name = name
        self.type = type
        self.nullable = nullable
    }

    var children: [ArrowField] {
        switch type {
        case .int64, .bool, .utf8: []
        case .list(let item): [item]
        case .struct(let members): members
        }
    }

    /// The type's member of Arrow's `Type` union, and its table.
    func writeType(to builder: inout FlatBufferBuilder) -> (tag: UInt8, table: FlatBufferBuilder.Offset) {
        builder.startTable()
        switch type {
        case .int64:
            builder.add(0, Int32(64))  // bitWidth
            builder.add(1, UInt8(1))  // is_signed
            return (2, builder.endTable())
        case .bool: return (6, builder.endTable())
        case .utf8: return (5, builder.endTable())
        case .list: return (12, builder.endTable())
        case .struct: return (13, builder.endTable())
        }
    }

    /// The `Field` table, its children written first.
    func write(to builder: inout FlatBufferBuilder) -> FlatBufferBuilder.Offset {
        let childOffsets = children.map { $0.write(to: &builder) }
        let children = builder.vector(of: childOffsets)
        let name = builder.string(name)
        let type = writeType(to: &builder)
        builder.startTable()
        builder.add(0, name)
        builder.add(1, UInt8(nullable ? 1 : 0))
        builder.add(2, type.tag)
        builder.add(3, type.table)
        // Readers refuse a field without a children vector, even an empty one.
        builder.add(5, children)
        return builder.endTable()
    }
}
