import SightlineFrames

/// Optimal one-to-one assignment (the linear assignment problem), solved with the Hungarian method
/// in its shortest-augmenting-path form (Jonker–Volgenant): O(n²·m) for n ≤ m.
///
/// Rows and columns are two sets (truth objects and predictions, say). `cost[r][c]` is the cost of
/// pairing row r with column c, or nil when the pair is not allowed (boxes below the IoU threshold).
/// The solution pairs as many allowed pairs as possible and, among those, has the least total cost;
/// this is what scipy's `linear_sum_assignment` gives on a matrix whose forbidden entries are a
/// very large cost, which is how py-motmetrics calls it.
///
/// Deterministic: the same matrix always gives the same pairs. Rows are added in order, and each
/// search keeps the first column of least reduced cost, so ties go to lower indexes.
public enum AssignmentSolver {
    /// The chosen pairs, sorted by row. Forbidden pairs never appear.
    public static func solve(_ cost: [[Double?]]) -> [(row: Int, column: Int)] {
        let rows = cost.count
        let columns = cost.map(\.count).max() ?? 0
        guard rows > 0, columns > 0 else { return [] }
        // A ragged matrix is read as padded with forbidden pairs.
        func entry(_ r: Int, _ c: Int) -> Double? {
            guard c < cost[r].count, let value = cost[r][c], value.isFinite else { return nil }
            return value
        }
        let allowed = (0..<rows).flatMap { r in (0..<columns).compactMap { c in entry(r, c) } }
        guard !allowed.isEmpty else { return [] }
        // One forbidden pair more must always cost more than any difference in allowed costs.
        let span = (allowed.max() ?? 0) - (allowed.min() ?? 0)
        let forbidden = (allowed.max() ?? 0) + span * Double(min(rows, columns) + 1) + 1

        let transposed = rows > columns
        let n = transposed ? columns : rows
        let m = transposed ? rows : columns
        var a = [[Double]](repeating: [Double](repeating: forbidden, count: m), count: n)
        for r in 0..<rows {
            for c in 0..<columns {
                guard let value = entry(r, c) else { continue }
                if transposed { a[c][r] = value } else { a[r][c] = value }
            }
        }

        let assignment = minimumCostAssignment(a, n: n, m: m)   // row i -> column assignment[i]
        var pairs: [(row: Int, column: Int)] = []
        for (i, j) in assignment.enumerated() {
            let (r, c) = transposed ? (j, i) : (i, j)
            if entry(r, c) != nil { pairs.append((r, c)) }
        }
        return pairs.sorted { $0.row < $1.row }
    }

    /// Every one of the n rows gets a distinct column (n ≤ m) at least total cost. Potentials `u`, `v`
    /// keep the reduced costs non-negative; each row is added by a Dijkstra-like search for the
    /// cheapest augmenting path. Indexes are 1-based inside, column 0 being the search's root.
    private static func minimumCostAssignment(_ a: [[Double]], n: Int, m: Int) -> [Int] {
        var u = [Double](repeating: 0, count: n + 1)
        var v = [Double](repeating: 0, count: m + 1)
        var owner = [Int](repeating: 0, count: m + 1)   // row (1-based) holding each column, 0 = free
        var way = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            owner[0] = i
            var j0 = 0
            var minimum = [Double](repeating: .infinity, count: m + 1)
            var used = [Bool](repeating: false, count: m + 1)
            repeat {
                used[j0] = true
                let i0 = owner[j0]
                var delta = Double.infinity
                var j1 = 0
                for j in 1...m where !used[j] {
                    let reduced = a[i0 - 1][j - 1] - u[i0] - v[j]
                    if reduced < minimum[j] {
                        minimum[j] = reduced
                        way[j] = j0
                    }
                    if minimum[j] < delta {
                        delta = minimum[j]
                        j1 = j
                    }
                }
                for j in 0...m {
                    if used[j] {
                        u[owner[j]] += delta
                        v[j] -= delta
                    } else {
                        minimum[j] -= delta
                    }
                }
                j0 = j1
            } while owner[j0] != 0
            repeat {
                let j1 = way[j0]
                owner[j0] = owner[j1]
                j0 = j1
            } while j0 != 0
        }
        var assignment = [Int](repeating: 0, count: n)
        for j in 1...m where owner[j] != 0 { assignment[owner[j] - 1] = j - 1 }
        return assignment
    }
}
