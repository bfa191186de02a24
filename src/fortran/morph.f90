! morph - malleable MPI programs in Fortran, for codes that `use mpi`
! (communicators are integers). Codes that `use mpi_f08` use the module
! morph_f08 (morph_f08.f90), which is this module with type(MPI_Comm).
!
! A thin layer over the C API of morph.h and morph/dmr.h: every call goes
! straight to C through ISO_C_BINDING; only MPI handles pass through the
! small C side of shim.c. What the layer adds is what Fortran needs:
! - arrays: a block or block-cyclic registration fills a handle
!   (type(morph_real64), ...) whose component `local` (and `local2`, the
!   same memory as a rank-2 array) is this process's part as a Fortran
!   array, kept pointing at the right memory after every reconfiguration;
! - errors: every subroutine takes an optional `ierr`; without it, a
!   failure prints morph's message and aborts the job, as MPI's default
!   error handler does;
! - strings: names are Fortran strings, messages come back as Fortran
!   strings.
! docs/fortran.md is the reference; morph.h says what each call does.
module morph
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64, error_unit, output_unit
  implicit none
  private

  include 'morph_errors.inc'

  integer, parameter, public :: MORPH_NEW = 0, MORPH_JOINING = 1, MORPH_STAYING = 2, &
                                MORPH_LEAVING = 3
  integer, parameter, public :: MORPH_MECH_AUTO = 0, MORPH_MECH_LIVE = 1, MORPH_MECH_RELAUNCH = 2
  integer, parameter, public :: DMR_NONE = 0, DMR_EXPAND = 1, DMR_SHRINK = 2
  ! A component of morph_options left at this value keeps morph's default
  ! (or the value of its MORPH_* environment variable).
  integer, parameter, public :: MORPH_UNSET = -huge(0)
  real(c_double), parameter :: UNSET_REAL = -huge(1.0_c_double)

  ! Options of morph_open and DMR_Init (morph_options in morph.h).
  type, public :: morph_options
    integer :: min_procs = MORPH_UNSET, max_procs = MORPH_UNSET, pref_procs = MORPH_UNSET
    real(c_double) :: sched_period = UNSET_REAL
    integer :: sched_iterations = MORPH_UNSET, mechanism = MORPH_UNSET
    real(c_double) :: step_timeout = UNSET_REAL, spawn_pause = UNSET_REAL
    character(len=:), allocatable :: socket_path, checkpoint_dir
  end type

  ! What morph_probe found (morph_change in morph.h).
  type, bind(c), public :: morph_change
    integer(c_int) :: pending = 0, status = MORPH_STAYING, old_size = 0, new_size = 0
    integer(c_int) :: mechanism = MORPH_MECH_AUTO, moving = 0
  end type

  ! The adaptation window that morph_begin opened (morph_window_info),
  ! communicators as integers.
  type, bind(c), public :: morph_window_info
    integer(c_int) :: status = MORPH_STAYING, staying = 0, leaving = 0, joining = 0
    integer(c_int) :: old_size = 0, new_size = 0
    integer(c_int) :: comm = 0, intercomm = 0, newcomm = 0
    integer(c_int) :: old_rank = -1, new_rank = -1, moving = 0
  end type

  ! Report of the last reconfiguration attempt (morph_reconf_report).
  type, public :: morph_reconf_report
    integer :: seq = 0, old_size = 0, new_size = 0, requested_size = 0
    integer :: mechanism = MORPH_MECH_AUTO, outcome = MORPH_OK
    integer(int64) :: iteration = 0, bytes_moved = 0
    real(real64) :: t_decision = 0, t_spawn = 0, t_redist = 0, t_commit = 0
    character(len=256) :: message = ''
  end type

  type, bind(c) :: c_report
    integer(c_int) :: seq, old_size, new_size, requested_size, mechanism, outcome
    integer(c_int64_t) :: iteration
    real(c_double) :: t_decision, t_spawn, t_redist, t_commit
    integer(c_int64_t) :: bytes_moved
    character(kind=c_char) :: message(256)
  end type

  type, bind(c) :: c_options
    integer(c_int) :: min_procs, max_procs, pref_procs
    real(c_double) :: sched_period
    integer(c_int) :: sched_iterations, mechanism
    real(c_double) :: step_timeout, spawn_pause
    type(c_ptr) :: socket_path, checkpoint_dir
  end type

  ! A registered array: this process's part of a block or block-cyclic
  ! array (or a DMRlib array). `count` elements of `lead` values each, the
  ! first at global element `offset` (0-based). The extensions below hold
  ! the part as Fortran arrays: local(count * lead), and local2(lead,
  ! count) over the same memory. The memory is morph's: never deallocate
  ! it. Declare handles with the TARGET attribute (morph keeps a reference
  ! to the handle and updates it at every reconfiguration).
  type, abstract, public :: morph_array
    character(len=64) :: name = ''
    integer(int64) :: count = 0, offset = 0, lead = 1, block = 0
    type(c_ptr), pointer, private :: cell => null()
    type(c_ptr), private :: seen = c_null_ptr
    integer, private :: dtype = 0
  end type
  type, extends(morph_array), public :: morph_real64
    real(real64), pointer, contiguous :: local(:) => null(), local2(:, :) => null()
  end type
  type, extends(morph_array), public :: morph_real32
    real(real32), pointer, contiguous :: local(:) => null(), local2(:, :) => null()
  end type
  type, extends(morph_array), public :: morph_int32
    integer(int32), pointer, contiguous :: local(:) => null(), local2(:, :) => null()
  end type
  type, extends(morph_array), public :: morph_int64
    integer(int64), pointer, contiguous :: local(:) => null(), local2(:, :) => null()
  end type

  type :: array_ref
    class(morph_array), pointer :: a => null()
  end type

  ! A malleable context (morph_ctx). Open it with morph_open; close it
  ! with morph_finalize. Pass the same variable to every call.
  type, public :: morph_ctx
    type(c_ptr), private :: p = c_null_ptr
    character(len=256), private :: msg = ''
    logical, private :: own_msg = .false. ! msg, not morph's, tells the last failure
    integer, private :: nregs = 0, size_seen = -1
    type(array_ref), allocatable, private :: regs(:)
  end type

  real(real64), target, save :: empty_real64(0)
  real(real32), target, save :: empty_real32(0)
  integer(int32), target, save :: empty_int32(0)
  integer(int64), target, save :: empty_int64(0)

  include 'morph_c.inc'

  public :: morph_options_init, morph_open, morph_finalize, morph_comm, morph_rank, morph_size
  public :: morph_get_status, morph_iteration, morph_errmsg, morph_set_limits, morph_set_inhibitors
  public :: morph_data_replicated, morph_data_block, morph_data_block_cyclic
  public :: morph_data_set_constant, morph_local_count, morph_local_offset
  public :: morph_point, morph_probe, morph_begin, morph_begin_overlap, morph_commit
  public :: morph_progress, morph_last_report, morph_status_name, morph_mechanism_name
  public :: morph_strerror, morph_err_name, morph_is_open
  public :: DMR_Init, DMR_Finalize, DMR_Is_new, DMR_Step, DMR_Comm, DMR_Intercomm
  public :: MORPH_DMR_parents, MORPH_DMR_children, DMR_Set_parameters, DMR_Set_sched_period
  public :: DMR_Set_sched_iterations, DMR_Alloc, DMR_Reconfig, DMR_Reconfig_probe
  public :: DMR_Reconfig_sending, DMR_Reconfig_sent, DMR_Reconfig_done
  public :: DMR_Send_expand_default, DMR_Recv_expand_default, DMR_Send_shrink_default
  public :: DMR_Recv_shrink_default, DMR_Send_expand_blockcyclic, DMR_Recv_expand_blockcyclic
  public :: DMR_Send_shrink_blockcyclic, DMR_Recv_shrink_blockcyclic

  interface morph_open
    module procedure open_int
  end interface
  interface morph_begin
    module procedure begin_int
  end interface
  interface morph_begin_overlap
    module procedure begin_overlap_int
  end interface
  ! Table 1: the expand and shrink forms are the same calls in morph.
  interface DMR_Send_expand_default
    module procedure dmr_send
  end interface
  interface DMR_Send_shrink_default
    module procedure dmr_send
  end interface
  interface DMR_Send_expand_blockcyclic
    module procedure dmr_send
  end interface
  interface DMR_Send_shrink_blockcyclic
    module procedure dmr_send
  end interface
  interface DMR_Recv_expand_default
    module procedure dmr_recv
  end interface
  interface DMR_Recv_shrink_default
    module procedure dmr_recv
  end interface
  interface DMR_Recv_expand_blockcyclic
    module procedure dmr_recv
  end interface
  interface DMR_Recv_shrink_blockcyclic
    module procedure dmr_recv
  end interface

contains

  include 'morph_util.inc'
  include 'morph_data.inc'
  include 'morph_point.inc'
  include 'morph_dmr.inc'

end module morph
