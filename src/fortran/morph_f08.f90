! morph_f08 - malleable MPI programs in Fortran, for codes that
! `use mpi_f08`: the module morph (morph.f90) with communicators of
! type(MPI_Comm). Everything else is morph's, unchanged: the same names,
! arguments and errors (docs/fortran.md).
module morph_f08
  use mpi_f08, only: MPI_Comm
  use morph, morph__comm => morph_comm, morph__dmr_comm => DMR_Comm, &
             morph__dmr_intercomm => DMR_Intercomm, morph__window => morph_window_info
  implicit none
  private :: MPI_Comm, morph__comm, morph__dmr_comm, morph__dmr_intercomm, morph__window
  private :: open_f08, begin_f08, begin_overlap_f08, open_window, window_f08

  ! The adaptation window that morph_begin opened (morph_window_info).
  type, public :: morph_window_info
    integer :: status = MORPH_STAYING, staying = 0, leaving = 0, joining = 0
    integer :: old_size = 0, new_size = 0
    type(MPI_Comm) :: comm, intercomm, newcomm
    integer :: old_rank = -1, new_rank = -1, moving = 0
  end type

  interface morph_open
    module procedure open_f08
  end interface
  interface morph_begin
    module procedure begin_f08
  end interface
  interface morph_begin_overlap
    module procedure begin_overlap_f08
  end interface
  public :: morph_comm, DMR_Comm, DMR_Intercomm

contains

  subroutine open_f08(comm, m, opts, ierr)
    type(MPI_Comm), intent(in) :: comm
    type(morph_ctx), intent(out) :: m
    type(morph_options), optional, intent(in) :: opts
    integer, optional, intent(out) :: ierr
    call morph_open(comm%MPI_VAL, m, opts, ierr)
  end subroutine

  pure type(MPI_Comm) function morph_comm(m)
    type(morph_ctx), intent(in) :: m
    morph_comm%MPI_VAL = morph__comm(m)
  end function

  type(MPI_Comm) function DMR_Comm()
    DMR_Comm%MPI_VAL = morph__dmr_comm()
  end function

  type(MPI_Comm) function DMR_Intercomm()
    DMR_Intercomm%MPI_VAL = morph__dmr_intercomm()
  end function

  subroutine begin_f08(m, info, ierr)
    type(morph_ctx), intent(inout) :: m
    type(morph_window_info), intent(out) :: info
    integer, optional, intent(out) :: ierr
    call open_window(m, info, .false., ierr)
  end subroutine

  subroutine begin_overlap_f08(m, info, ierr)
    type(morph_ctx), intent(inout) :: m
    type(morph_window_info), intent(out) :: info
    integer, optional, intent(out) :: ierr
    call open_window(m, info, .true., ierr)
  end subroutine

  subroutine open_window(m, info, overlap, ierr)
    type(morph_ctx), intent(inout) :: m
    type(morph_window_info), intent(out) :: info
    logical, intent(in) :: overlap
    integer, optional, intent(out) :: ierr
    type(morph__window) :: w
    if (overlap) then
      call morph_begin_overlap(m, w, ierr)
    else
      call morph_begin(m, w, ierr)
    end if
    info = window_f08(w)
  end subroutine

  type(morph_window_info) function window_f08(w) result(f)
    type(morph__window), intent(in) :: w
    f%status = w%status
    f%staying = w%staying
    f%leaving = w%leaving
    f%joining = w%joining
    f%old_size = w%old_size
    f%new_size = w%new_size
    f%comm%MPI_VAL = w%comm
    f%intercomm%MPI_VAL = w%intercomm
    f%newcomm%MPI_VAL = w%newcomm
    f%old_rank = w%old_rank
    f%new_rank = w%new_rank
    f%moving = w%moving
  end function

end module morph_f08
