import ArgumentParser
import Foundation
import PolicyRuntime
import PolicyJOSE
import Rules

/// `policy-run encrypt`: encrypts a request's `encrypted_fields` with the policy's key.
struct EncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a request's encrypted_fields with the policy's key, so that check passes it.",
        discussion: """
        REQUEST is a JSON file {method, url, headers, body}, or '-' for standard input. The \
        request is printed with every listed body field replaced by a JWE (the policy's first \
        allowed alg and enc): a compact string, or with --serialization flattened a JWE JSON \
        serialization object, which the policy accepts as well. Plaintext never appears in errors. \
        Exit status: 0 encrypted, 2 usage, policy or request error.
        """
    )

    @OptionGroup var options: PolicyOptions

    @Argument(help: "The request JSON file, or '-' for standard input.")
    var request: String

    @Option(help: "How each field is written: compact (a JWE string) or flattened (a JWE JSON serialization object).")
    var serialization: RequestEncryptor.Serialization = .compact

    func run() throws {
        let policy = try options.compiledPolicy()
        let bytes = try TokenArgument.bytes(request)
        guard bytes.count <= RequestSubject.maxBytes else {
            throw ValidationError("the request holds more than \(RequestSubject.maxBytes) bytes")
        }
        let document: JSONObject
        do {
            document = try JSONParser().parseObject(bytes, what: "a request")
        } catch {
            throw ValidationError("the request is not JSON: \(error.message)")
        }
        do {
            let encryptor = try RequestEncryptor(policy: policy)
            let encrypted = try encryptor.encrypt(request: document, inputs: options.inputs(), serialization: serialization)
            print(JSONValue.object(encrypted).prettyPrinted())
        } catch let error as RequestEncryptionError {
            FileHandle.standardError.write(Data("error: \(InertText.escaped(error.description))\n".utf8))
            throw ExitCode(2)
        }
    }
}

extension RequestEncryptor.Serialization: ExpressibleByArgument {}
