import XCTest
@testable import Sightline

final class AssignmentSolverTests: XCTestCase {
    private func total(_ cost: [[Double?]], _ pairs: [(row: Int, column: Int)]) -> Double {
        pairs.reduce(0) { $0 + (cost[$1.row][$1.column] ?? .nan) }
    }

    func testSquareMatrixWorkedByHand() {
        // All six permutations of
        //   4 1 3
        //   2 0 5
        //   3 2 2
        // cost: (0,1,2) 4+0+2=6, (0,2,1) 4+5+2=11, (1,0,2) 1+2+2=5, (1,2,0) 1+5+3=9,
        //       (2,0,1) 3+2+2=7, (2,1,0) 3+0+3=6 -> the least is rows 0,1,2 to columns 1,0,2 (5).
        let cost: [[Double?]] = [[4, 1, 3], [2, 0, 5], [3, 2, 2]]
        let pairs = AssignmentSolver.solve(cost)
        XCTAssertEqual(pairs.map(\.row), [0, 1, 2])
        XCTAssertEqual(pairs.map(\.column), [1, 0, 2])
        XCTAssertEqual(total(cost, pairs), 5)
    }

    func testMorePairsBeatLowerCost() {
        // Greedy by least cost takes (0,0) at 0.1 and then row 1 has nothing allowed left: 1 pair.
        // The optimum pairs both rows, (0,1) + (1,0) = 0.8, because pairs count first.
        let cost: [[Double?]] = [[0.1, 0.4], [0.4, nil]]
        let pairs = AssignmentSolver.solve(cost)
        XCTAssertEqual(pairs.map(\.row), [0, 1])
        XCTAssertEqual(pairs.map(\.column), [1, 0])
    }

    func testRectangularAndForbidden() {
        // 2 rows, 3 columns: row 0 may only take column 2; row 1 prefers column 2 but takes 0.
        let wide: [[Double?]] = [[nil, nil, 0.5], [0.3, 0.9, 0.1]]
        XCTAssertEqual(AssignmentSolver.solve(wide).map(\.column), [2, 0])
        // The same transposed: 3 rows, 2 columns.
        let tall: [[Double?]] = [[nil, 0.3], [nil, 0.9], [0.5, 0.1]]
        let pairs = AssignmentSolver.solve(tall)
        XCTAssertEqual(pairs.map(\.row), [0, 2])
        XCTAssertEqual(pairs.map(\.column), [1, 0])
        // Nothing allowed, nothing at all.
        XCTAssertTrue(AssignmentSolver.solve([[nil, nil], [nil, nil]]).isEmpty)
        XCTAssertTrue(AssignmentSolver.solve([]).isEmpty)
        XCTAssertTrue(AssignmentSolver.solve([[], []]).isEmpty)
    }

    func testTiesAreBrokenTheSameWayEveryTime() {
        // Every assignment costs 2: rows taken in order each keep the lowest free column.
        let cost: [[Double?]] = [[1, 1, 1], [1, 1, 1]]
        let first = AssignmentSolver.solve(cost)
        XCTAssertEqual(first.map(\.column), [0, 1])
        for _ in 0..<5 { XCTAssertEqual(AssignmentSolver.solve(cost).map(\.column), first.map(\.column)) }
    }

    /// Largest number of allowed pairs, then least total cost, by trying every partial assignment.
    private func bruteForce(_ cost: [[Double?]], columns: Int) -> (pairs: Int, cost: Double) {
        var best = (pairs: 0, cost: 0.0)
        var used = [Bool](repeating: false, count: columns)
        func visit(_ row: Int, _ pairs: Int, _ sum: Double) {
            if row == cost.count {
                if pairs > best.pairs || (pairs == best.pairs && sum < best.cost - 1e-12) { best = (pairs, sum) }
                return
            }
            visit(row + 1, pairs, sum)
            for c in 0..<columns where !used[c] {
                guard let value = cost[row][c] else { continue }
                used[c] = true
                visit(row + 1, pairs + 1, sum + value)
                used[c] = false
            }
        }
        visit(0, 0, 0)
        return best
    }

    func testMatchesBruteForceOnRandomMatrices() {
        var state: UInt64 = 0x5eed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<300 {
            let rows = Int(next() * 6), columns = Int(next() * 6)
            let cost: [[Double?]] = (0..<rows).map { _ in
                (0..<columns).map { _ in next() < 0.3 ? nil : (next() * 10).rounded() / 10 }
            }
            let pairs = AssignmentSolver.solve(cost)
            let expected = bruteForce(cost, columns: columns)
            XCTAssertEqual(pairs.count, expected.pairs, "\(cost)")
            XCTAssertEqual(total(cost, pairs), expected.cost, accuracy: 1e-9, "\(cost)")
            XCTAssertEqual(Set(pairs.map(\.row)).count, pairs.count)
            XCTAssertEqual(Set(pairs.map(\.column)).count, pairs.count)
        }
    }
}
