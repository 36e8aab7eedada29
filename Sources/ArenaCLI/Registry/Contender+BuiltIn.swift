import ArenaContract
import HomeEngines

extension Contender {
    /// The built-in contenders with the built-in workloads (`ArenaWorkloads`), each compiled for its engine here, once,
    /// each holding the reference roles `BuiltInEngines.references` gives it.
    public static let builtIn: [Contender] = {
        var maker = ContenderMaker(workloads: ArenaWorkloads())
        BuiltInEngines.shared.forEach(&maker)
        let references = BuiltInEngines.shared.references
        return maker.contenders.map { contender in
            contender.reference(of: Set(references.filter { $0.value == contender.name }.keys))
        }
    }()
}
