@_spi(RuleAuthoring) import PolicyJOSE

/// What decoding a policy's tokens remembers from one token for the next: the protected headers
/// decoded lately (an issuer's tokens share a few, decoded once each) and the layouts of the
/// claims sets read lately (an issuer's tokens name the same claims in the same order, and a
/// claims set repeating a layout is indexed against it).
///
/// A policy keeps one for every evaluation; a batch worker judging a chunk of a log on several
/// threads keeps its own, since one shared by every thread was locked, and its header's
/// reference count changed, by each thread on every record: cache lines the cores passed back
/// and forth. Learning an issuer's header and layout again costs a chunk one decoding of each.
package struct DecodingMemory: Sendable {
    let headers = JOSEHeaderCache()
    let claimShapes = JSONObjectShapes()

    /// Nothing remembered yet.
    package init() {}

    /// How many protected headers are remembered.
    package var headerCount: Int { headers.count }

    /// `token` decoded (`TokenDecoder.decode`) with these headers and claim layouts, which a
    /// method of the memory passes on in place.
    func decode(_ token: TokenText, envelope: TokenEnvelope, digesting: Bool) -> Result<DecodedToken, TokenDecoder.Failure> {
        TokenDecoder.decode(token, envelope: envelope, digesting: digesting, headers: headers, shapes: claimShapes)
    }
}
