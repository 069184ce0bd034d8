// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Recorder: a target contract for the transaction-relay integration tests.
/// @notice Each function takes a different shape of ABI argument (plain types, a named tuple, a
/// nested tuple, an array of tuples), stores what it got so a test can read it back through a
/// getter, and emits one event naming the caller. Further functions revert in the ways a relayer
/// must tell apart, and one burns a chosen amount of gas.
contract Recorder {
    struct Plain {
        address who;
        uint256 amount;
        bool flag;
        bytes data;
        string note;
        bytes32 tag;
        int64 delta;
    }

    struct Order {
        uint256 id;
        address owner;
        uint8[] flags;
    }

    struct Meta {
        address author;
        bytes32 tag;
    }

    struct Doc {
        uint256 id;
        Meta meta;
        string title;
    }

    struct Transfer {
        address to;
        uint256 amount;
    }

    /// Kept in slot 0 on purpose: a test may arm the trap with `anvil_setStorageAt(recorder, 0x0,
    /// 0x…01)` instead of a transaction, e.g. while a relayed transaction waits in the mempool of
    /// a node started with --no-mining. Keep it the first state variable.
    bool public trapArmed;

    /// Every successful state-changing call counts; `lastCaller` is its msg.sender.
    uint256 public callCount;
    address public lastCaller;

    Plain private _lastPlain;
    Order private _lastOrder;
    mapping(address => Order) private _ownOrders;
    mapping(uint256 => Doc) private _docs;
    mapping(uint256 => uint256) public docVersion;
    Transfer[] private _transfers;
    /// Sum of `n` over all `spend(n)` calls.
    uint256 public totalSpent;
    /// Written by the reverting functions before they revert, so the compiler keeps them
    /// state-changing (a relayer sends them as transactions); never observable as non-zero.
    uint256 private _neverStored;
    /// Grows by one hash per unit of `spend`, so the optimizer cannot drop the work.
    bytes32 public spendDigest;

    error Failed(uint256 code);

    event PlainSet(address indexed caller, address indexed who, uint256 amount, bytes32 tag);
    event OrderSet(address indexed caller, uint256 indexed id, address owner, uint256 flagCount);
    event DocSet(address indexed caller, uint256 indexed id, uint256 version, address author);
    event TransfersSet(address indexed caller, uint256 count, uint256 total);
    event TrapArmed(address indexed caller, bool armed);
    event TrapPassed(address indexed caller, uint256 x);
    event Spent(address indexed caller, uint256 n, uint256 burnt);

    // --- (a) plain types --------------------------------------------------------------------

    function setPlain(
        address who,
        uint256 amount,
        bool flag,
        bytes calldata data,
        string calldata note,
        bytes32 tag,
        int64 delta
    ) external {
        _lastPlain = Plain(who, amount, flag, data, note, tag, delta);
        _touch();
        emit PlainSet(msg.sender, who, amount, tag);
    }

    function lastPlain() external view returns (Plain memory) {
        return _lastPlain;
    }

    // --- (b) a named tuple with an array member ---------------------------------------------

    function setOrder(Order calldata order) external {
        _lastOrder = order;
        _touch();
        emit OrderSet(msg.sender, order.id, order.owner, order.flags.length);
    }

    function lastOrder() external view returns (Order memory) {
        return _lastOrder;
    }

    /// Like setOrder, but kept per caller: what a call's storage writes cost depends only on the
    /// caller's own earlier calls, not on other senders' (setOrder's depends on whoever called last).
    function setOwnOrder(Order calldata order) external {
        _ownOrders[msg.sender] = order;
        _touch();
        emit OrderSet(msg.sender, order.id, order.owner, order.flags.length);
    }

    function ownOrder(address caller) external view returns (Order memory) {
        return _ownOrders[caller];
    }

    // --- (c) a nested tuple beside a plain argument -----------------------------------------

    function setDoc(Doc calldata doc, uint256 version) external {
        _docs[doc.id] = doc;
        docVersion[doc.id] = version;
        _touch();
        emit DocSet(msg.sender, doc.id, version, doc.meta.author);
    }

    /// The document stored under `id`; all fields zero if none was set.
    function docs(uint256 id) external view returns (Doc memory) {
        return _docs[id];
    }

    // --- (d) an array of tuples -------------------------------------------------------------

    /// Replaces the stored list with `transfers`.
    function setTransfers(Transfer[] calldata transfers) external {
        delete _transfers;
        uint256 total = 0;
        for (uint256 i = 0; i < transfers.length; i++) {
            _transfers.push(transfers[i]);
            total += transfers[i].amount;
        }
        _touch();
        emit TransfersSet(msg.sender, transfers.length, total);
    }

    function transferCount() external view returns (uint256) {
        return _transfers.length;
    }

    /// Reverts with a Panic (0x32, index out of bounds) when `i >= transferCount()`.
    function transferAt(uint256 i) external view returns (Transfer memory) {
        return _transfers[i];
    }

    function allTransfers() external view returns (Transfer[] memory) {
        return _transfers;
    }

    // --- (e) reverts that simulation catches ------------------------------------------------

    /// Always reverts with Error(string) "always reverts": eth_estimateGas fails with that reason.
    function alwaysReverts(uint256 x) external {
        _neverStored = x;
        require(false, "always reverts");
    }

    /// Always reverts with Error(string) `reason`: a reason that reads like a node's refusal
    /// ("insufficient funds", "nonce too low") is still the contract's revert.
    function revertWith(string calldata reason) external {
        _neverStored = bytes(reason).length;
        require(false, reason);
    }

    /// Always reverts with the custom error Failed(code).
    function failWith(uint256 code) external {
        _neverStored = code;
        revert Failed(code);
    }

    // --- (f) a revert that simulation does not catch ----------------------------------------
    //
    // revertsWhenMined(x) reverts with "trap armed" iff `trapArmed` is set when it executes. A
    // test makes a transaction pass simulation and revert on inclusion by arming the trap after
    // the simulation and before the transaction is mined:
    //  - automine (anvil's default): estimateGas(revertsWhenMined) → armTrap() (mined at once) →
    //    send revertsWhenMined with an explicit gasLimit (ethers would otherwise estimate again
    //    and refuse) → the receipt has status 0.
    //  - --no-mining, e.g. around a relayer that simulates and broadcasts by itself: wait until
    //    the transaction is in the mempool, arm with anvil_setStorageAt(recorder, slot 0, 1)
    //    (no transaction, so no ordering question), then evm_mine → status 0.
    // disarmTrap() makes the function pass again.

    function armTrap() external {
        _setTrap(true);
    }

    function disarmTrap() external {
        _setTrap(false);
    }

    function revertsWhenMined(uint256 x) external {
        require(!trapArmed, "trap armed");
        _touch();
        emit TrapPassed(msg.sender, x);
    }

    // --- (g) gas for throughput tests -------------------------------------------------------

    /// Burns n × 1,000 gas (give or take one hash) in a loop, on top of the call's fixed cost:
    /// ~21k intrinsic plus ~20k of storage reads and writes (~70k more on the first call, which
    /// fills fresh slots). Keep n below ~16,000: Osaka caps a transaction at 2^24 gas (EIP-7825;
    /// anvil enforces it only with --enable-tx-gas-limit) and anvil's default block gas limit is 30M.
    function spend(uint256 n) external {
        bytes32 digest = spendDigest;
        uint256 budget = n * 1000;
        // Measured against gasleft() rather than counting iterations: the burn then does not
        // depend on what a hash costs on this EVM, only on the gas actually used.
        uint256 startGas = gasleft();
        while (startGas - gasleft() < budget) {
            // Hashing in the scratch space: no memory growth, so every round costs the same.
            assembly ("memory-safe") {
                mstore(0, digest)
                digest := keccak256(0, 32)
            }
        }
        uint256 burnt = startGas - gasleft();
        spendDigest = digest;
        totalSpent += n;
        _touch();
        emit Spent(msg.sender, n, burnt);
    }

    // --- (h) a payable call ---------------------------------------------------------------

    /// Sum of the wei sent with `deposit` calls; the contract's balance grows by the same.
    uint256 public totalDeposited;

    event Deposited(address indexed caller, uint256 amount, uint256 tag);

    function deposit(uint256 tag) external payable {
        totalDeposited += msg.value;
        _touch();
        emit Deposited(msg.sender, msg.value, tag);
    }

    // --- internals --------------------------------------------------------------------------

    function _setTrap(bool armed) private {
        trapArmed = armed;
        _touch();
        emit TrapArmed(msg.sender, armed);
    }

    function _touch() private {
        callCount += 1;
        lastCaller = msg.sender;
    }

    // --- (h) reverts of each kind, for decoded revert reasons ---------------------------------

    /// Panic 0x11: `type(uint256).max + x` overflows for any x > 0.
    function overflow(uint256 x) external {
        _neverStored = type(uint256).max;
        _neverStored += x;
    }

    /// Panic 0x12 when `b` is zero.
    function divide(uint256 a, uint256 b) external {
        _neverStored = a / b;
        _touch();
    }

    /// Panic 0x01 when `x` is zero.
    function assertNonZero(uint256 x) external {
        assert(x != 0);
        _neverStored = x;
        _touch();
    }

    /// Reverts with the custom error Failed(code) iff `trapArmed` is set when it executes: like
    /// revertsWhenMined, a revert on chain that simulation did not see, with a custom error.
    function failWhenTrapped(uint256 code) external {
        if (trapArmed) revert Failed(code);
        _touch();
        emit TrapPassed(msg.sender, code);
    }
}
